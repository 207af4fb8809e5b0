export declare const POSTGRES_BIN: string;
export declare function replicaToolsMissing(): string | undefined;
