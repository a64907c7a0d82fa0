import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import vue from '@vitejs/plugin-vue'

export default defineConfig({
  main: {
    build: {
      // The web host and the sandbox CLI are Node programs built beside main, from the same services.
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'electron/main/index.ts'),
          web: resolve(__dirname, 'electron/web/cli.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      // A sandboxed preload cannot require() npm modules: bundle everything into one file.
      externalizeDeps: false,
      rollupOptions: { input: { index: resolve(__dirname, 'electron/preload/index.ts') } },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src'),
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      rollupOptions: { input: resolve(__dirname, 'src/index.html') },
    },
    plugins: [vue()],
  },
})
