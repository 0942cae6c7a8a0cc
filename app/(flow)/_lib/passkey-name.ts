const DEVICES: [RegExp, string][] = [
  [/iPhone/, "iPhone"],
  [/iPad/, "iPad"],
  [/Android/, "Android"],
  [/CrOS/, "ChromeOS"],
  [/Macintosh|Mac OS X/, "Mac"],
  [/Windows/, "Windows"],
  [/Linux/, "Linux"],
];
const BROWSERS: [RegExp, string][] = [
  [/Edg(A|iOS)?\//, "Edge"],
  [/Firefox\/|FxiOS/, "Firefox"],
  [/OPR\//, "Opera"],
  [/Chrome\/|CriOS/, "Chrome"],
  [/Safari\//, "Safari"],
];

/**
 * The name a new passkey is listed by on "My access": the device and the
 * browser it was made in ("iPhone · Safari", "Windows · Edge"), the same in
 * every language; "Passkey" when neither is known.
 */
export function passkeyName(userAgent: string): string {
  const first = (table: [RegExp, string][]) =>
    table.find(([pattern]) => pattern.test(userAgent))?.[1];
  return [first(DEVICES), first(BROWSERS)].filter(Boolean).join(" · ") || "Passkey";
}
