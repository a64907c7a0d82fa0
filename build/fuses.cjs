// electron-builder afterPack hook: flips Electron's fuses in the packaged binary (see electron-builder.yml).
// Kept as plain CommonJS so electron-builder can require it without a build step.
const path = require('node:path')
const { flipFuses, FuseVersion, FuseV1Options } = require('@electron/fuses')

/** The fuse settings, exported so a unit test can check them without a packaged app. */
const FUSES = {
  version: FuseVersion.V1,
  [FuseV1Options.RunAsNode]: false,
  [FuseV1Options.EnableCookieEncryption]: true,
  [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
  [FuseV1Options.EnableNodeCliInspectArguments]: false,
  [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
  [FuseV1Options.OnlyLoadAppFromAsar]: true,
  [FuseV1Options.LoadBrowserProcessSpecificV8Snapshot]: false,
  // Left on: the renderer is loaded from file:// and its ES module scripts need it. Turning it off
  // goes with serving the renderer from a custom app:// protocol (a planned change).
  [FuseV1Options.GrantFileProtocolExtraPrivileges]: true,
}

function executablePath(context) {
  const name = context.packager.appInfo.productFilename
  switch (context.electronPlatformName) {
    case 'darwin':
    case 'mas':
      return path.join(context.appOutDir, `${name}.app`)
    case 'win32':
      return path.join(context.appOutDir, `${name}.exe`)
    default:
      return path.join(context.appOutDir, context.packager.executableName)
  }
}

async function afterPack(context) {
  await flipFuses(executablePath(context), {
    ...FUSES,
    // macOS arm64 binaries must be re-signed after their fuses change.
    resetAdHocDarwinSignature: context.electronPlatformName === 'darwin' && context.arch === 3,
  })
}

module.exports = afterPack
module.exports.default = afterPack
module.exports.FUSES = FUSES
