import { createRouter, createWebHashHistory, type RouteRecordRaw } from 'vue-router'
import ConnectionsView from '../views/ConnectionsView.vue'

// Hash history: the packaged app loads from file://, where path-based history has nothing to serve.
export const routes: RouteRecordRaw[] = [
  { path: '/', redirect: '/connections' },
  { path: '/connections', name: 'connections', component: ConnectionsView },
  { path: '/ledger', name: 'ledger', component: () => import('../views/LedgerView.vue') },
  { path: '/match', name: 'match', component: () => import('../views/MatchView.vue') },
  { path: '/month-end', name: 'month-end', component: () => import('../views/MonthEndView.vue') },
  { path: '/settings', name: 'settings', component: () => import('../views/SettingsView.vue') },
]

export function createAppRouter() {
  return createRouter({ history: createWebHashHistory(), routes })
}
