/**
 * The order of the four servers in each round of a comparison: a balanced Latin square (Williams
 * design). Over any four rounds in a row each server runs once in each place and right after each
 * other server exactly once, so what one server leaves behind when its load stops (a collection
 * of its heap, connections closing, the machine's caches) weighs on every server alike. A plain
 * rotation ran every server after the same one in every round.
 */
const WILLIAMS_FOUR: readonly (readonly number[])[] = [
  [0, 1, 3, 2],
  [1, 2, 0, 3],
  [2, 3, 1, 0],
  [3, 0, 2, 1],
];

/** The indexes of the four servers in the order round `round` (from 0) runs them. */
export function roundOrder(round: number): readonly number[] {
  return WILLIAMS_FOUR[round % WILLIAMS_FOUR.length] ?? WILLIAMS_FOUR[0]!;
}
