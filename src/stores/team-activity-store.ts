/**
 * What the team loop changed locally, for the views to re-read: a counter per connection that goes up each
 * time the server's marks or locks were written into this cache. A view watching it shows another
 * desktop's mark or close without a reload.
 */
import { defineStore } from 'pinia'
import { ref } from 'vue'

export const useTeamActivityStore = defineStore('team-activity', () => {
  const applied = ref<Record<string, number>>({})

  function bump(connectionId: string): void {
    applied.value = { ...applied.value, [connectionId]: (applied.value[connectionId] ?? 0) + 1 }
  }

  /** How many times the server's decisions changed this connection's cache since the app started. */
  const appliedTo = (connectionId: string | null): number =>
    connectionId ? (applied.value[connectionId] ?? 0) : 0

  return { applied, bump, appliedTo }
})
