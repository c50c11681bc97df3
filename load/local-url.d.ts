// Types of local-url.js for the TypeScript that tests it (k6 loads the JavaScript itself).
export function localUrl(name: string, value: unknown): string;
