export declare const CHROMIUM_PATH: string;
export declare function chromiumInstalled(): boolean;
