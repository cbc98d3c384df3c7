// Ranking of candidate points: cheapest per hour first, then fewest GPUs, then the shape's place in
// the candidate order. The search prunes with the same order, so pruning never changes the winner.

export type RankKey = readonly [cost: number, gpus: number, index: number];

export function compareKeys(a: RankKey, b: RankKey): number {
  for (let i = 0; i < 3; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** Cost per hour of `gpus` GPUs at `price`, rounded to the cent (what the table shows and ties compare). */
export function hourlyCost(gpus: number, price: number): number {
  return Math.round(gpus * price * 100) / 100;
}
