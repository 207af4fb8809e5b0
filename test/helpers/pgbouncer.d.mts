export declare const SERVICE_SETTINGS: string;
export declare const IGNORED_STARTUP_PARAMETERS: string;
export declare function serverUser(): { uid: number; gid: number } | undefined;
export interface RunningPgBouncer {
  readonly port: number;
  stop(): Promise<void>;
}
export declare function startPgBouncer(
  databases: Record<string, string>,
  probeDatabase: string,
): Promise<RunningPgBouncer>;
