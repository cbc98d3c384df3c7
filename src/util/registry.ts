// Name → factory lookup, one registry per policy family. Adding a policy is one file plus one
// `register` call; plugins register into the same registries.

export class Registry<F> {
  private readonly entries = new Map<string, F>();
  constructor(readonly family: string) {}

  register(name: string, factory: F): void {
    if (this.entries.has(name)) throw new Error(`${this.family} "${name}" is already registered`);
    this.entries.set(name, factory);
  }

  /** Removes a name (plugin policies are registered for one simulation at a time). */
  unregister(name: string): void {
    this.entries.delete(name);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  get(name: string): F | undefined {
    return this.entries.get(name);
  }

  /** Registered names, sorted (the order BLIS prints in "valid options" lists). */
  names(): string[] {
    return [...this.entries.keys()].sort();
  }
}
