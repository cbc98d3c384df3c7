// Name → descriptor lookup, the one registry type of every named family: policies (through
// PolicyRegistry, which stores its descriptors with their parameter types erased), latency
// backends, features and workload sources (each through its own registry, which erases types too).
// Adding one is one file plus one `register` call; plugins register into the same registries.

/** What every registered descriptor has: the name it is looked up by. */
export interface Named {
  readonly name: string;
}

export class Registry<D extends Named> {
  private readonly entries = new Map<string, D>();
  constructor(readonly family: string) {}

  register(descriptor: D): void {
    if (this.entries.has(descriptor.name)) throw new Error(`${this.family} "${descriptor.name}" is already registered`);
    this.entries.set(descriptor.name, descriptor);
  }

  /** Removes a name (plugin policies are registered for one simulation at a time). */
  unregister(name: string): void {
    this.entries.delete(name);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  get(name: string): D | undefined {
    return this.entries.get(name);
  }

  /** Registered names, sorted (the order BLIS prints in "valid options" lists). */
  names(): string[] {
    return [...this.entries.keys()].sort();
  }

  /** Registered names in registration order (the order of --help lists). */
  listed(): string[] {
    return [...this.entries.keys()];
  }

  /** Registered descriptors in registration order. */
  all(): D[] {
    return [...this.entries.values()];
  }
}
