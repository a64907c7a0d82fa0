import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  ConnectionRegistry,
  type StoredConnection,
} from '../../../../../electron/services/connections/connection-registry'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))
function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'closebook-registry-'))
  dirs.push(d)
  return d
}

const record: StoredConnection = {
  id: '6f1c4a52-3b7e-4c1a-9d2e-0a1b2c3d4e5f',
  label: 'Yamada Shoten',
  baseUrl: 'https://api.example.test',
  storeIds: [],
  timeZone: 'Asia/Tokyo',
  hasCredentials: true,
  createdAt: '2026-10-01T00:00:00.000Z',
  updatedAt: '2026-10-01T00:00:00.000Z',
}

describe('ConnectionRegistry', () => {
  it('starts empty, saves atomically (no temporary file left) and loads what it saved', async () => {
    const dir = dataDir()
    const registry = new ConnectionRegistry(dir)
    expect(await registry.load()).toEqual({ connections: [] })
    await registry.save([record])
    expect(readdirSync(dir)).toEqual(['connections.json'])
    expect(await new ConnectionRegistry(dir).load()).toEqual({ connections: [record] })
    expect(readFileSync(join(dir, 'connections.json'), 'utf8')).not.toMatch(/secret|appToken/i)
  })

  it('keeps a corrupt file aside as .corrupt-<time>, reports it, and starts empty', async () => {
    const dir = dataDir()
    writeFileSync(join(dir, 'connections.json'), '{"version":1,"connections":[{"id":')
    const registry = new ConnectionRegistry(dir, () => Date.UTC(2026, 9, 1, 12, 0, 0))
    const loaded = await registry.load()
    expect(loaded.connections).toEqual([])
    expect(loaded.problem).toMatch(/not valid JSON.*connections\.json\.corrupt-2026-10-01T12-00-00-000Z/)
    expect(readdirSync(dir)).toEqual(['connections.json.corrupt-2026-10-01T12-00-00-000Z'])
    expect(readFileSync(join(dir, 'connections.json.corrupt-2026-10-01T12-00-00-000Z'), 'utf8')).toContain(
      '"id":',
    )
  })

  it('treats a file that breaks the schema (e.g. a plain-http remote host) the same way, naming the field', async () => {
    const dir = dataDir()
    const bad = { version: 1, connections: [{ ...record, baseUrl: 'http://evil.example' }] }
    writeFileSync(join(dir, 'connections.json'), JSON.stringify(bad))
    const loaded = await new ConnectionRegistry(dir).load()
    expect(loaded.problem).toContain('connections.0.baseUrl')
    expect(readdirSync(dir).some((f) => f.startsWith('connections.json.corrupt-'))).toBe(true)
  })
})
