import type { Page } from '@playwright/test'

/**
 * Chooses a month (`YYYY-MM`) or a day (`YYYY-MM-DD`) in the app's year/month/day control
 * (src/components/DatePartsInput.vue), found as the group its legend names, the way a user does: one
 * select after another. Option values are numbers, so this works in either display language.
 */
export async function chooseDate(page: Page, label: string, value: string): Promise<void> {
  const group = page.getByRole('group', { name: label, exact: true })
  const [year, month, day] = value.split('-').map((part) => String(Number(part)))
  await group.locator('select[data-part="year"]').selectOption(year ?? '')
  await group.locator('select[data-part="month"]').selectOption(month ?? '')
  if (day !== undefined) await group.locator('select[data-part="day"]').selectOption(day)
}
