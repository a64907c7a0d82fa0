// `npm start`: the desktop app when an Electron binary is installed, otherwise the same app through the
// web host in the default browser (say so, so nobody wonders where the window is).
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const passThrough = process.argv.slice(2)

function electronPath() {
  try {
    const path = require('electron')
    return typeof path === 'string' && existsSync(path) ? path : null
  } catch {
    return null
  }
}

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit', shell: process.platform === 'win32' })
  if (result.status !== 0) process.exit(result.status ?? 1)
}

if (electronPath()) {
  run('npx', ['electron-vite', 'preview', ...passThrough])
} else {
  console.log('No Electron binary is installed here: starting Closebook as the web host instead.\n')
  run('npx', ['electron-vite', 'build'])
  run(process.execPath, ['out/main/web.js', ...passThrough])
}
