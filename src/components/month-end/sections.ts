/**
 * The parts of Month-end, in page order: each gets its own heading, an entry in the page's section
 * navigation and the month's data. Adding a part is one line here (its title key lives with its texts).
 */
import type { Component } from 'vue'
import MonthChartsSection from './MonthChartsSection.vue'
import MonthExportsSection from './MonthExportsSection.vue'
import MonthPayoutsSection from './MonthPayoutsSection.vue'
import MonthSummarySection from './MonthSummarySection.vue'
import MonthTotalsSection from './MonthTotalsSection.vue'

export interface MonthEndSection {
  /** Unique; the section's element id is `month-end-<id>`. */
  id: string
  /** i18n key of the section's heading, also its name in the navigation. */
  titleKey: string
  /** Rendered with the one prop `month` (MonthData). */
  component: Component
}

export const MONTH_END_SECTIONS: readonly MonthEndSection[] = [
  { id: 'summary', titleKey: 'monthEndSections.titles.summary', component: MonthSummarySection },
  { id: 'totals', titleKey: 'monthEndSections.titles.totals', component: MonthTotalsSection },
  { id: 'payouts', titleKey: 'monthEndSections.titles.payouts', component: MonthPayoutsSection },
  { id: 'exports', titleKey: 'monthEndSections.titles.exports', component: MonthExportsSection },
  { id: 'charts', titleKey: 'monthEndSections.titles.charts', component: MonthChartsSection },
]

export const sectionElementId = (id: string): string => `month-end-${id}`
export const sectionTitleId = (id: string): string => `month-end-${id}-title`
