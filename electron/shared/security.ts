/**
 * Content-Security-Policy of the renderer, one definition for both hosts (Electron sets it as a response
 * header on the app's own pages, the web host sends it with index.html). No 'unsafe-eval', no inline
 * scripts; `connect-src 'self'` lets the web host's renderer reach only its own origin.
 */
export const RENDERER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ')
