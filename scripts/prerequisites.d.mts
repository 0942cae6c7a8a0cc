/** Types of scripts/prerequisites.mjs (plain JavaScript, as it runs before npm install). */
export interface Requirement {
  name: string;
  package: string;
  neededBy: string;
  otherwise?: string;
  command?: string;
  file?: string;
}

export interface Probe {
  command(name: string): boolean;
  file(file: string): boolean;
  chromium(): boolean;
}

export const MINIMUM_NODE: [number, number];
export const REQUIREMENTS: Requirement[];
export function machineProbe(options: {
  env: Record<string, string | undefined>;
  isFile?: (file: string) => boolean;
  root?: string;
}): Probe;
export function missingRequirements(probe: Probe): Requirement[];
export function nodeIsRecentEnough(version: string): boolean;
export function prerequisiteMessage(options: {
  missing: Requirement[];
  nodeVersion: string;
  asRoot: boolean;
}): string | null;
