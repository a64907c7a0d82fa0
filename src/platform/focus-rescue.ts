/**
 * Focus that is never lost: when an action replaces or disables the focused control (Import,
 * Accept, Backup, Test, Sync, the demo button…), Chromium leaves focus on the page body, and a keyboard
 * or screen-reader user must start again from the top. Each view would need its own bookkeeping; this does
 * it once: it remembers the focused element and its ancestors, and when that element is gone or disabled
 * while nothing else has focus, it focuses the nearest remaining ancestor's heading or status (or the
 * ancestor itself). A click on blank space keeps the browser's behaviour: the remembered element is still
 * there and enabled, so nothing is moved.
 */
let remembered: { element: HTMLElement; ancestors: HTMLElement[] } | null = null

/** Inside a dialog that has closed: still in the page, but nobody can reach it. */
function inClosedDialog(element: HTMLElement): boolean {
  return element.closest('dialog:not([open])') !== null
}

function isGone(element: HTMLElement): boolean {
  return !element.isConnected || (element as HTMLButtonElement).disabled === true || inClosedDialog(element)
}

function target(ancestor: HTMLElement): HTMLElement {
  const inside = ancestor.querySelector<HTMLElement>('[role="status"], [role="alert"], h1, h2, h3')
  return inside ?? ancestor
}

function rescue(): void {
  const active = document.activeElement
  if (remembered === null) return
  // A disabled control may keep focus in some engines: that is as lost as the body.
  if (active !== null && active !== document.body && active !== remembered.element) return
  if (!isGone(remembered.element)) return
  for (const ancestor of remembered.ancestors) {
    if (!ancestor.isConnected || ancestor === document.body || inClosedDialog(ancestor)) continue
    const next = target(ancestor)
    if (!next.hasAttribute('tabindex') && next.tabIndex < 0) next.tabIndex = -1
    next.focus({ preventScroll: true })
    return
  }
}

/** Starts watching `root` (the main content); returns a function that stops it. */
export function installFocusRescue(root: HTMLElement): () => void {
  const onFocusIn = (e: FocusEvent): void => {
    const element = e.target
    if (!(element instanceof HTMLElement) || element === document.body) return
    const ancestors: HTMLElement[] = []
    for (let a = element.parentElement; a && a !== root.parentElement; a = a.parentElement) ancestors.push(a)
    remembered = { element, ancestors }
  }
  let scheduled = false
  const schedule = (): void => {
    if (scheduled) return
    scheduled = true
    requestAnimationFrame(() => {
      scheduled = false
      rescue()
    })
  }
  document.addEventListener('focusin', onFocusIn)
  const observer = new MutationObserver(schedule)
  observer.observe(root, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['disabled', 'open'],
  })
  return () => {
    document.removeEventListener('focusin', onFocusIn)
    observer.disconnect()
    remembered = null
  }
}
