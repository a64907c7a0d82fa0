/**
 * For a view that reloads on every change: reads can end out of order (a month's slow read, then a
 * mark's quick one), and an older, emptier answer must not overwrite a newer one. `ask()` before each
 * read returns a check that stays true only while no later read has been asked for.
 */
export function newestAnswer(): { ask: () => () => boolean } {
  let asked = 0
  return {
    ask() {
      const mine = ++asked
      return () => mine === asked
    },
  }
}
