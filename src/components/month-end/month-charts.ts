/**
 * The month's charts as ECharts options: per currency (amounts of different currencies never share an
 * axis), one series per mode, every text through the caller's translator. Pure: no Vue, no store.
 */
import type { ComposeOption } from 'echarts/core'
import type { BarSeriesOption } from 'echarts/charts'
import type {
  AriaComponentOption,
  GridComponentOption,
  LegendComponentOption,
  TooltipComponentOption,
} from 'echarts/components'
import { toMajorUnits } from '../../domain/currency'
import type { MonthData } from '../../stores/month-end-store'

export type ChartOption = ComposeOption<
  BarSeriesOption | GridComponentOption | LegendComponentOption | TooltipComponentOption | AriaComponentOption
>

export interface ChartText {
  t: (key: string, named?: Record<string, unknown>) => string
  locale: string
  /** The month as the UI names it. */
  period: string
}

export interface DailyNet {
  /** `YYYY-MM-DD` days of the month that have records. */
  days: string[]
  modes: string[]
  /** Net (charged − refunds − fees) per day of `days`, in minor units. */
  net: (mode: string) => number[]
}

export function currenciesOf(month: MonthData): string[] {
  return [...new Set(month.totals.map((x) => x.currency))]
}

export function dailyOf(month: MonthData, currency: string): DailyNet {
  const daily = month.summary.daily.filter((p) => p.currency === currency)
  const days = [...new Set(daily.map((p) => p.day))]
  const modes = [...new Set(daily.map((p) => p.mode))]
  const net = (mode: string) =>
    days.map((day) => {
      const p = daily.find((x) => x.day === day && x.mode === mode)
      return p ? p.gross - p.refunds - p.fees : 0
    })
  return { days, modes, net }
}

function axisLabel(currency: string, locale: string) {
  return (v: number) => new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(v) + ` ${currency}`
}

function frame(text: ChartText, currency: string, description: string, bottom: number): ChartOption {
  return {
    aria: { enabled: true, label: { description } },
    tooltip: { trigger: 'axis', valueFormatter: (v) => `${String(v)} ${currency}` },
    legend: { top: 0 },
    grid: { left: 80, right: 16, top: 36, bottom },
    yAxis: {
      type: 'value',
      name: text.t('monthEnd.charts.amountAxis', { currency }),
      axisLabel: { formatter: axisLabel(currency, text.locale) },
    },
  }
}

export function dailyOption(month: MonthData, currency: string, text: ChartText): ChartOption {
  const { t, period } = text
  const { days, modes, net } = dailyOf(month, currency)
  return {
    ...frame(text, currency, t('monthEnd.charts.dailyDescription', { period, currency }), 40),
    xAxis: {
      type: 'category',
      name: t('monthEnd.charts.day'),
      nameLocation: 'middle',
      nameGap: 26,
      data: days.map((d) => d.slice(8)),
    },
    series: modes.map((mode) => ({
      type: 'bar',
      name: t('monthEnd.charts.withMode', {
        series: t('monthEnd.charts.series.net'),
        mode: t(`ledger.modes.${mode}`),
      }),
      data: net(mode).map((v) => toMajorUnits(v, currency)),
    })),
  }
}

export function totalsOption(month: MonthData, currency: string, text: ChartText): ChartOption {
  const { t, period } = text
  const totals = month.totals.filter((x) => x.currency === currency)
  const names = (['charged', 'refunded', 'fees', 'net'] as const).map((k) => t(`monthEnd.charts.series.${k}`))
  return {
    ...frame(text, currency, t('monthEnd.charts.totalsDescription', { period, currency }), 30),
    xAxis: { type: 'category', data: names },
    series: totals.map((x) => ({
      type: 'bar',
      name: t(`ledger.modes.${x.mode}`),
      data: [x.chargeSum, x.refundSum, x.feeSum, x.net].map((v) => toMajorUnits(v, currency)),
    })),
  }
}
