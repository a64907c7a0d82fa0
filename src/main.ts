import { createApp } from 'vue'
import { createPinia } from 'pinia'
import App from './App.vue'
import { createAppI18n, initialLocale, savedLocale } from './i18n'
import { createAppRouter } from './router'
import { useAppStore } from './stores/app-store'
import { registerCloseFacts } from './stores/close-facts'
import './assets/app.css'

const locale = initialLocale(savedLocale(), navigator.languages)
const i18n = createAppI18n(locale)
document.documentElement.lang = locale

// The close checklist reads "verified" and "quarantined" from the cache, not "not available".
registerCloseFacts()

const pinia = createPinia()
const app = createApp(App).use(pinia).use(createAppRouter()).use(i18n)
// Before any view queries the cache: the store learns whether this open migrates an older cache.
void useAppStore(pinia).openCache()
app.mount('#app')
