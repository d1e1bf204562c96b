// Its home is the base (src/suggest.ts): the API's option checks use it too.
export { suggest } from '../suggest.js';
