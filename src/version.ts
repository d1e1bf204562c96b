import { readFileSync } from 'node:fs';

// Read once from package.json so the tool's name and version in results never drift from the package.
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};
export const TOOL_NAME: string = pkg.name;
export const TOOL_VERSION: string = pkg.version;
