// Paged KV cache with a prefix cache, after vLLM's block pool (docs/sim.md "Prefix cache: blocks"): blocks with
// refCount 0 sit in a free queue and keep their hash until reallocated, so a later prompt with the same prefix
// reuses them without prefill. Like vLLM it does not de-duplicate: a block filled with the same tokens as a cached
// one is cached too, and a lookup takes the one cached first.
export class KvCache {
  readonly numBlocks: number;
  readonly blockSize: number;
  private readonly ref: Int32Array;
  private readonly hashOf: Array<number | undefined>;
  private readonly byHash = new Map<number, number>(); // the block a lookup takes: the first cached
  private readonly later = new Map<number, number[]>(); // blocks cached after it with the same hash, in order
  // Doubly linked free queue (head = least recently freed = evicted first); -1 = none.
  private readonly prev: Int32Array;
  private readonly next: Int32Array;
  private readonly inFree: Uint8Array;
  private head = -1;
  private tail = -1;
  private freeCount = 0;
  queries = 0; // prompt tokens looked up (vllm:prefix_cache_queries)
  hits = 0; // of which found cached (vllm:prefix_cache_hits)

  constructor(
    capacityTokens: number,
    blockSize: number,
    readonly prefixCaching = true,
  ) {
    this.blockSize = blockSize;
    this.numBlocks = Math.max(1, Math.floor(capacityTokens / blockSize));
    this.ref = new Int32Array(this.numBlocks);
    this.hashOf = new Array<number | undefined>(this.numBlocks);
    this.prev = new Int32Array(this.numBlocks);
    this.next = new Int32Array(this.numBlocks);
    this.inFree = new Uint8Array(this.numBlocks);
    for (let b = 0; b < this.numBlocks; b++) this.pushTail(b);
  }

  get freeBlocks(): number {
    return this.freeCount;
  }
  get usedBlocks(): number {
    return this.numBlocks - this.freeCount;
  }
  get usage(): number {
    return this.usedBlocks / this.numBlocks;
  }

  blocksFor(tokens: number): number {
    return Math.ceil(tokens / this.blockSize);
  }

  // Leading blocks of `hashes` present in the cache (in use or free).
  matchPrefix(hashes: readonly number[]): number {
    if (!this.prefixCaching) return 0;
    let n = 0;
    while (n < hashes.length && this.byHash.has(hashes[n]!)) n++;
    return n;
  }

  // Takes the cached blocks for the first `hit` hashes, then `fresh` new blocks. Caller checked canAllocate.
  acquire(hashes: readonly number[], hit: number, fresh: number): number[] {
    const blocks: number[] = [];
    for (let i = 0; i < hit; i++) {
      const b = this.byHash.get(hashes[i]!)!;
      if (this.inFree[b]) this.unlink(b);
      this.ref[b]!++;
      blocks.push(b);
    }
    for (let i = 0; i < fresh; i++) blocks.push(this.allocOne()!);
    return blocks;
  }

  // Blocks that acquire(hashes, hit, fresh) would take out of the free queue.
  freeNeeded(hashes: readonly number[], hit: number, fresh: number): number {
    let n = fresh;
    for (let i = 0; i < hit; i++) if (this.inFree[this.byHash.get(hashes[i]!)!]) n++;
    return n;
  }

  allocOne(): number | undefined {
    const b = this.head;
    if (b < 0) return undefined;
    this.unlink(b);
    const h = this.hashOf[b];
    if (h !== undefined) this.evict(b, h);
    this.ref[b] = 1;
    return b;
  }

  // A block became full of computed tokens: publish it for reuse.
  register(block: number, hash: number): void {
    if (!this.prefixCaching || this.hashOf[block] !== undefined) return;
    this.hashOf[block] = hash;
    if (!this.byHash.has(hash)) this.byHash.set(hash, block);
    else {
      const list = this.later.get(hash);
      if (list) list.push(block);
      else this.later.set(hash, [block]);
    }
  }

  private evict(b: number, h: number): void {
    this.hashOf[b] = undefined;
    const list = this.later.get(h);
    if (this.byHash.get(h) === b) {
      if (!list) this.byHash.delete(h);
      else this.byHash.set(h, list.shift()!);
    } else if (list) list.splice(list.indexOf(b), 1);
    if (list?.length === 0) this.later.delete(h);
  }

  // Freed in reverse so a sequence's tail blocks are evicted before its head (vLLM does the same).
  release(blocks: readonly number[]): void {
    for (let i = blocks.length - 1; i >= 0; i--) {
      const b = blocks[i]!;
      if (--this.ref[b]! === 0) this.pushTail(b);
    }
  }

  isCached(hash: number): boolean {
    return this.byHash.has(hash);
  }

  private pushTail(b: number): void {
    this.prev[b] = this.tail;
    this.next[b] = -1;
    if (this.tail >= 0) this.next[this.tail] = b;
    else this.head = b;
    this.tail = b;
    this.inFree[b] = 1;
    this.freeCount++;
  }

  private unlink(b: number): void {
    const p = this.prev[b]!;
    const n = this.next[b]!;
    if (p >= 0) this.next[p] = n;
    else this.head = n;
    if (n >= 0) this.prev[n] = p;
    else this.tail = p;
    this.inFree[b] = 0;
    this.freeCount--;
  }
}
