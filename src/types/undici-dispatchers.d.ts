/**
 * Types of undici's dispatcher modules, imported one by one (src/http/dispatchers.ts): each
 * module's `module.exports` is the class the package index exports under the same name.
 */
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}
declare module 'undici/lib/dispatcher/proxy-agent.js' {
  import { ProxyAgent } from 'undici';
  export default ProxyAgent;
}
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import { EnvHttpProxyAgent } from 'undici';
  export default EnvHttpProxyAgent;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import { Dispatcher } from 'undici';
  export default Dispatcher;
}
declare module 'undici/lib/api/api-connect.js' {
  import { Dispatcher } from 'undici';

  const connect: Dispatcher['connect'];
  export default connect;
}
