export declare function initialisedDataDir(): Promise<Blob>;
