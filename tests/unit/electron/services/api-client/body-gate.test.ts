/**
 * Large answers are read a few at a time: a third answer past 1 MB waits until one of the first two has
 * been read (or given up), so parallel partitions cannot each hold a page of the maximum size.
 */
import { describe, expect, it } from 'vitest'
import { BodyGate, LARGE_BODY, LARGE_BODY_SLOTS } from '../../../../../electron/services/api-client/body-gate'
import { buildListRequest } from '../../../../../electron/services/api-client/list-request'
import { PaymentApiClient } from '../../../../../electron/services/api-client/payment-api-client'
import { FakeClock } from '../support/fake-clock'
import { CANARY_CREDENTIALS, fakeFetch } from '../support/fixtures'

const BASE = 'https://api.example.test'
const CHUNK = 256 * 1024

/** A body of `size` bytes of a valid empty page padded with spaces, held after `holdAfter` bytes until released. */
function heldBody(size: number, holdAfter: number) {
  let release!: () => void
  const held = new Promise<void>((r) => (release = r))
  let sent = 0
  const head = new TextEncoder().encode('{"items":[],"has_more":false}')
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent >= holdAfter) await held
      if (sent >= size) return controller.close()
      const chunk = sent === 0 ? head : new Uint8Array(Math.min(CHUNK, size - sent)).fill(0x20)
      sent += chunk.byteLength
      controller.enqueue(chunk)
    },
  })
  return { stream, release, sent: () => sent }
}

describe('large answers are read a few at a time', () => {
  it('a third large answer waits for a slot, and goes on once one is free', async () => {
    const size = 3 * LARGE_BODY
    const bodies = [heldBody(size, 2 * LARGE_BODY), heldBody(size, 2 * LARGE_BODY), heldBody(size, Infinity)]
    let call = 0
    const { fetch } = fakeFetch(() => {
      const body = bodies[call++]
      return new Response(body?.stream, { status: 200, headers: { 'Content-Type': 'application/json' } })
    })
    const client = new PaymentApiClient({ clock: new FakeClock(), fetch, timeoutMs: 60_000 })
    const request = buildListRequest(BASE, { resource: 'transaction_history' })
    const list = () => client.list(request, CANARY_CREDENTIALS, new AbortController().signal)
    const first = list()
    const second = list()
    await new Promise((r) => setTimeout(r, 50))
    expect(client.bodies.available).toBe(LARGE_BODY_SLOTS - 2)
    let thirdDone = false
    const third = list().then((r) => {
      thirdDone = true
      return r
    })
    await new Promise((r) => setTimeout(r, 100))
    // The third read its first megabyte and waits: not the rest of its body.
    expect(thirdDone).toBe(false)
    expect(bodies[2]?.sent()).toBeLessThan(LARGE_BODY + 3 * CHUNK)
    bodies[0]?.release()
    expect((await first).ok).toBe(true)
    expect((await third).ok).toBe(true)
    bodies[1]?.release()
    expect((await second).ok).toBe(true)
    expect(client.bodies.available).toBe(LARGE_BODY_SLOTS)
  })

  it('a wait given up (cancelled) takes no slot', async () => {
    const gate = new BodyGate(1)
    const hold = await gate.acquire(new AbortController().signal)
    const cancel = new AbortController()
    const waiting = gate.acquire(cancel.signal)
    cancel.abort()
    await expect(waiting).rejects.toThrow(/aborted/)
    hold()
    expect(gate.available).toBe(1)
  })
})
