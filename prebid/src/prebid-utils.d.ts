// Prebid ships no declarations for its utils module: the two functions the adapter uses.
declare module 'prebid.js/src/utils.js' {
  export function logWarn(...args: unknown[]): void;
  export function triggerPixel(url: string, done?: () => void, timeout?: number): void;
}
