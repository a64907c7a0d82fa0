import { createRouter, createWebHashHistory, type RouteRecordRaw } from 'vue-router'
import ConnectionsView from '../views/ConnectionsView.vue'

// Hash history: the packaged app loads from file://, where path-based history has nothing to serve.
export const routes: RouteRecordRaw[] = [
  { path: '/', redirect: '/connections' },
  // meta.titleKey: the i18n key of the view's name, for document.title and the route announcement.
  {
    path: '/connections',
    name: 'connections',
    component: ConnectionsView,
    meta: { titleKey: 'nav.connections' },
  },
  {
    path: '/ledger',
    name: 'ledger',
    component: () => import('../views/LedgerView.vue'),
    meta: { titleKey: 'nav.ledger' },
  },
  {
    path: '/match',
    name: 'match',
    component: () => import('../views/MatchView.vue'),
    meta: { titleKey: 'nav.match' },
  },
  {
    path: '/month-end',
    name: 'month-end',
    component: () => import('../views/MonthEndView.vue'),
    meta: { titleKey: 'nav.monthEnd' },
  },
  {
    path: '/payouts',
    name: 'payouts',
    component: () => import('../views/PayoutsView.vue'),
    meta: { titleKey: 'nav.payouts' },
  },
  {
    path: '/settings',
    name: 'settings',
    component: () => import('../views/SettingsView.vue'),
    meta: { titleKey: 'nav.settings' },
  },
]

export function createAppRouter() {
  return createRouter({ history: createWebHashHistory(), routes })
}
