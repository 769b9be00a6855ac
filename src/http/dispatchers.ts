/**
 * The undici dispatcher classes the fetcher uses, imported from their own modules rather than
 * from the package index. The index also loads fetch, WebSocket, cookies, caches, mocks and more
 * (a megabyte of source), and touches globals that make Node load its own bundled undici: about
 * 20 ms of every process start and 2 MB of an idle worker's heap, for code the crawler never
 * calls. The classes are the same objects the index exports (undici 7; `npm test` covers
 * plain, proxied and environment-proxied requests, http and https).
 */
import connect from 'undici/lib/api/api-connect.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js';

// The index also installs its request APIs on Dispatcher.prototype. ProxyAgent needs one of them,
// `connect`, to open the CONNECT tunnel of an https target: without it every https request
// through a proxy failed ("this[kClient].connect is not a function").
Dispatcher.prototype.connect ??= connect;

export { Agent, EnvHttpProxyAgent, ProxyAgent };
