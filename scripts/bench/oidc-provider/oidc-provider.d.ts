/** The little of oidc-provider's surface the benchmark baseline uses (the package ships no types). */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface Model {
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (request: IncomingMessage, response: ServerResponse) => Promise<void>;
    Client: { find(id: string): Promise<object | undefined> };
    Grant: new (fields: { accountId: string; clientId: string }) => Model & {
      addOIDCScope(scope: string): void;
    };
    AuthorizationCode: new (fields: Record<string, unknown>) => Model;
  }
}
