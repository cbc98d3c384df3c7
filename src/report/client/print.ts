import type { Chart } from "chart.js";

/** Printing: draws the charts at a fixed page width and a higher pixel ratio, then restores them. */
export function installPrintHandlers(charts: Chart[]): void {
  let printing = false;
  function beforePrint(): void {
    if (printing) return;
    printing = true;
    charts.forEach((c) => {
      c.options.devicePixelRatio = 2;
      c.resize(680, c.canvas.parentElement?.clientHeight || 280);
    });
  }
  function afterPrint(): void {
    if (!printing) return;
    printing = false;
    charts.forEach((c) => {
      c.options.devicePixelRatio = undefined;
      c.resize();
    });
  }
  window.addEventListener("beforeprint", beforePrint);
  window.addEventListener("afterprint", afterPrint);
  // Some browsers only signal printing through the media query.
  if (window.matchMedia) {
    const mq = window.matchMedia("print");
    if (mq.addEventListener) {
      mq.addEventListener("change", (e) => {
        if (e.matches) beforePrint();
        else afterPrint();
      });
    }
  }
}
