export declare const TEMPLATE_DATABASE: string;
export declare function adminUrl(url: string): string;
