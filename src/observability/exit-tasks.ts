/** Work that must finish before a graceful stop calls process.exit (e.g. sending the last spans). */
const tasks: (() => Promise<void>)[] = [];

export function beforeGracefulExit(task: () => Promise<void>): void {
  tasks.push(task);
}

/** Runs them all; one failing does not keep the others from running. */
export async function runExitTasks(): Promise<void> {
  await Promise.allSettled(tasks.map((task) => task()));
}
