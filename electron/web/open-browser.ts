import { spawn } from 'node:child_process'

/** Opens a URL with the desktop's default handler; failure is not fatal (the URL is printed anyway). */
export function openInBrowser(url: string): Promise<void> {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]]
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { stdio: 'ignore', detached: true })
      child.on('error', () => resolve())
      child.unref()
      resolve()
    } catch {
      resolve()
    }
  })
}
