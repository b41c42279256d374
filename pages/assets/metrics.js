// The metrics page's charts: one uPlot chart per metric, from the JSON the page carries in
// <script type="application/json" id="metrics-data">. Money is in integer cents and shown in reais.
// The same figures are in the page's tables, which is what a reader without the canvas gets.
/* global uPlot, ResizeObserver, devicePixelRatio */
'use strict';
document.addEventListener('DOMContentLoaded', () => {
  const source = document.getElementById('metrics-data');
  if (!source || typeof uPlot !== 'function') return;
  const data = JSON.parse(source.textContent);
  for (const element of document.querySelectorAll('.chart[data-metric]')) drawChart(element, data);
});

const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const COUNT = new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 0 });
const HEIGHT = 240;

/** Steps of 1, 2 and 5 times a power of ten: whole cents on money axes, whole units on counts and periods. */
const STEPS = [];
for (let power = 1; power <= 1e13; power *= 10) STEPS.push(power, 2 * power, 5 * power);

const format = (money, value) => (value == null ? '—' : money ? BRL.format(value / 100) : COUNT.format(value));

/** An axis as wide as its longest label (uPlot's documented way to size an axis to its values). */
function axisSize(self, values, axisIndex, cycle) {
  const axis = self.axes[axisIndex];
  if (cycle > 1) return axis._size;
  const longest = (values || []).reduce((a, v) => (String(v).length > a.length ? String(v) : a), '');
  self.ctx.font = axis.font[0];
  return Math.ceil(axis.ticks.size + axis.gap + self.ctx.measureText(longest).width / devicePixelRatio);
}

function drawChart(element, data) {
  const metric = element.getAttribute('data-metric');
  const money = element.hasAttribute('data-money');
  const flow = metric === 'revenue' || metric === 'sales_count';
  const values = data.series[metric];
  const labels = data.labels;
  const x = labels.map((_, i) => i);
  const options = {
    width: Math.max(element.clientWidth, 200),
    height: HEIGHT,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: {
      x: { time: false, range: () => [-0.5, labels.length - 0.5] },
      y: { range: (_u, _min, max) => [0, uPlot.rangeNum(0, Math.max(max, money ? 100 : 1), 0.1, true)[1]] },
    },
    axes: [
      {
        incrs: STEPS,
        space: 48,
        values: (_u, splits) => splits.map((i) => (Number.isInteger(i) ? (labels[i] ?? '') : '')),
      },
      { incrs: STEPS, size: axisSize, values: (_u, splits) => splits.map((v) => format(money, v)) },
    ],
    series: [
      {},
      {
        label: element.closest('figure').querySelector('figcaption').textContent,
        stroke: flow ? '#0b5cad' : '#1b7f4b',
        fill: flow ? 'rgba(11, 92, 173, 0.55)' : 'rgba(27, 127, 75, 0.12)',
        width: 2,
        value: (_u, v) => format(money, v),
        ...(flow ? { paths: uPlot.paths.bars({ size: [0.7, 48] }), points: { show: false } } : {}),
      },
    ],
  };
  const chart = new uPlot(options, [x, values], element);
  const canvas = chart.root.querySelector('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', element.getAttribute('data-label'));
  new ResizeObserver(() => {
    const width = Math.max(element.clientWidth, 200);
    if (width !== chart.width) chart.setSize({ width, height: HEIGHT });
  }).observe(element);
}
