export declare function neutralise(text: string): string;
