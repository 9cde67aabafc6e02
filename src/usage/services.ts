// Which service a spend row belongs to (docs/usage-observe.md): a service that lists the row's model_group
// (else its model) under usage.models, else the service named like the model_group, else like the model.
// A name listed under two services is refused by the config schema, so the mapping is a function.

export class ServiceMap {
  private readonly listed = new Map<string, string>();

  constructor(models: Readonly<Record<string, readonly string[]>>) {
    for (const [service, names] of Object.entries(models)) for (const n of names) this.listed.set(n, service);
  }

  /** [listed name, service] pairs: what the database path joins on. */
  pairs(): [string, string][] {
    return [...this.listed.entries()];
  }

  serviceOf(modelGroup: string, model: string): string {
    if (this.listed.size === 0) return modelGroup !== "" ? modelGroup : model;
    if (modelGroup !== "") {
      const s = this.listed.get(modelGroup);
      if (s !== undefined) return s;
    }
    if (model !== "") {
      const s = this.listed.get(model);
      if (s !== undefined) return s;
    }
    return modelGroup !== "" ? modelGroup : model;
  }
}
