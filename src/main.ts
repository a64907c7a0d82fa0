import { createApp } from 'vue'
import { createPinia } from 'pinia'
import App from './App.vue'
import { createAppI18n, initialLocale, savedLocale } from './i18n'
import { createAppRouter } from './router'
import './assets/app.css'

const locale = initialLocale(savedLocale(), navigator.languages)
const i18n = createAppI18n(locale)
document.documentElement.lang = locale

createApp(App).use(createPinia()).use(createAppRouter()).use(i18n).mount('#app')
