// For tools that read .ts without Vue's language service (ESLint's type-aware rules); vue-tsc sees the real types.
declare module '*.vue' {
  import type { DefineComponent } from 'vue'
  const component: DefineComponent<object, object, unknown>
  export default component
}
