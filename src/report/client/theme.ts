// Colours from the page's CSS variables (so that charts match the stylesheet) and Chart.js's
// global defaults.

export interface Theme {
  /** Text and drawn marks (whiskers, labels, reference lines). */
  ink: string;
  grid: string;
  /** Canvas font of the text the plugins draw. */
  labelFont: string;
}

const FONT_FAMILY = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";

export function applyTheme(): Theme {
  const css = getComputedStyle(document.documentElement);
  const ink = css.getPropertyValue("--ink").trim() || "#1f2328";
  const muted = css.getPropertyValue("--muted").trim() || "#59636e";
  const grid = css.getPropertyValue("--grid").trim() || "#e6e8eb";
  // Reports are static pictures: no animation, and the wrapper's CSS height sets the size.
  Chart.defaults.animation = false;
  Chart.defaults.color = muted;
  Chart.defaults.borderColor = grid;
  Chart.defaults.font.family = FONT_FAMILY;
  Chart.defaults.font.size = 12;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.responsive = true;
  return { ink, grid, labelFont: "11px " + FONT_FAMILY };
}
