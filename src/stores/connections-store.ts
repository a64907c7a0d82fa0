import { toAppError, type AppError } from '../platform/app-error'
import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import { desktopApi } from '../platform'
import type { ConnectionSummary } from '../../electron/shared/contract'

export interface NewConnection {
  label: string
  baseUrl: string
  secret: string
  appToken: string
  storeIds: string[]
  timeZone: string
}

/** Connections as main knows them (never with secrets), plus what the UI is doing with them. */
export const useConnectionsStore = defineStore('connections', () => {
  const connections = ref<ConnectionSummary[]>([])
  const loading = ref(false)
  const busy = ref<string | null>(null)
  const error = ref<AppError | null>(null)
  const selectedId = ref<string | null>(null)

  const selected = computed(
    () => connections.value.find((c) => c.id === selectedId.value) ?? connections.value[0] ?? null,
  )

  async function run<T>(what: string, work: () => Promise<T>): Promise<T | undefined> {
    busy.value = what
    error.value = null
    try {
      return await work()
    } catch (e) {
      error.value = toAppError(e)
      return undefined
    } finally {
      busy.value = null
    }
  }

  async function load(): Promise<void> {
    loading.value = true
    await run('load', async () => {
      connections.value = await desktopApi().connections.list({})
    })
    loading.value = false
  }

  async function startDemo(): Promise<ConnectionSummary | undefined> {
    const demo = await run('demo', () => desktopApi().sandbox.startDemo({}))
    if (demo) {
      await load()
      selectedId.value = demo.id
    }
    return demo
  }

  async function create(input: NewConnection): Promise<ConnectionSummary | undefined> {
    const created = await run('create', () => desktopApi().connections.create(input))
    if (created) {
      await load()
      selectedId.value = created.id
    }
    return created
  }

  async function remove(id: string): Promise<void> {
    await run('delete', () => desktopApi().connections.delete({ id }))
    if (selectedId.value === id) selectedId.value = null
    await load()
  }

  async function test(id: string) {
    return run('test', () => desktopApi().connections.test({ id }))
  }

  return { connections, loading, busy, error, selectedId, selected, load, startDemo, create, remove, test }
})
