// `node:module` for the browser build: nothing is resolved from node_modules in the page.

export function createRequire(_from: string | URL): { resolve(id: string): string } {
  const fail = (id: string): never => {
    throw new Error(`cannot resolve ${id} in the browser`);
  };
  return { resolve: fail };
}

export default { createRequire };
