/**
 * How the user guide writes what the app shows: a UI label in **bold**, an app message quoted on a line
 * of its own (`> message`), an image as `![alt](path)`. Code spans and blocks are neither.
 */
type Tree = { readonly [key: string]: string | Tree }

/** A page about a part not in this build: `<!-- guide: not in this build: why -->`. */
export const PENDING_MARKER = /<!--\s*guide: not in this build: ([^>]*?)\s*-->/

function withoutCode(page: string): string {
  return page.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '')
}

export function guideLabels(page: string): string[] {
  return [...withoutCode(page).matchAll(/\*\*([^*\n]+)\*\*/g)].map((m) => (m[1] ?? '').trim())
}

export function guideQuotes(page: string): string[] {
  return [...withoutCode(page).matchAll(/^> (.+)$/gm)].map((m) => (m[1] ?? '').trim())
}

export function guideImages(page: string): string[] {
  return [...page.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '')
}

export interface MessageTexts {
  exact: Set<string>
  templates: RegExp[]
}

/** Every text a message tree can show: each plural form, placeholders standing for any value. */
export function messageTexts(messages: Tree): MessageTexts {
  const texts: string[] = []
  const walk = (node: Tree): void => {
    for (const value of Object.values(node)) {
      if (typeof value !== 'string') walk(value)
      else
        texts.push(
          ...value
            .replace(/\{'(.)'\}/g, '$1')
            .split(' | ')
            .map((t) => t.trim()),
        )
    }
  }
  walk(messages)
  const escape = (s: string): string => s.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&')
  return {
    exact: new Set(texts),
    templates: texts
      // A template that is all placeholders ('{period}') would match any label: only those with words.
      .filter((t) => /\{\w+\}/.test(t) && /\p{L}/u.test(t.replace(/\{\w+\}/g, '')))
      .map(
        (t) =>
          new RegExp(
            `^${t
              .split(/\{\w+\}/)
              .map(escape)
              .join('.+')}$`,
            's',
          ),
      ),
  }
}

export function labelShown(label: string, texts: MessageTexts): boolean {
  return texts.exact.has(label) || texts.templates.some((re) => re.test(label))
}
