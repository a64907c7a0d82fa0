import { describe, expect, it } from 'vitest'
import { createSSRApp, h } from 'vue'
import { renderToString } from 'vue/server-renderer'
import { DesktopApiError } from '../../../../electron/shared/errors'
import ErrorMessage from '../../../../src/components/ErrorMessage.vue'
import { createAppI18n, type Locale } from '../../../../src/i18n'
import { toAppError } from '../../../../src/platform/app-error'

async function render(error: unknown, locale: Locale): Promise<string> {
  const app = createSSRApp({ render: () => h(ErrorMessage, { error: toAppError(error) }) })
  app.use(createAppI18n(locale))
  return renderToString(app)
}

describe('the error message', () => {
  it('says a team login failure in the team’s words, not the payment service’s', async () => {
    const team = new DesktopApiError('unauthorized', 'password authentication failed', {
      failure: 'auth_failed',
    })
    const en = await render(team, 'en')
    expect(en).toContain('The server refused this login or password.')
    expect(en).not.toContain('secret and the app token')
    expect(await render(team, 'ja')).not.toContain('アプリトークン')
  })

  it('keeps the payment service’s sentence for its own refusal', async () => {
    const service = new DesktopApiError('unauthorized', 'refused')
    expect(await render(service, 'en')).toContain('secret and the app token')
  })
})
