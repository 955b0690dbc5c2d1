import type { Command } from 'commander';
import { loadKeyMaterial } from '../keys/key-material.js';
import { WEBHOOK_EVENT_TYPES } from '../store/webhooks/webhook-rows.js';
import {
  createEndpoint,
  deleteEndpoint,
  type EndpointProblem,
  listEndpoints,
  recentDeliveries,
  replayEvents,
  retryDelivery,
  rotateEndpointSecret,
  sendTestEvent,
  setEndpointEnabled,
  type WebhookServiceDeps,
} from '../webhooks/webhook-endpoints.js';
import { type CliConfig, examples, fail, type WithStore } from './cli-support.js';

const PROBLEMS: Record<EndpointProblem['problem'], string> = {
  account_not_found: 'no account named',
  webhook_not_found: 'no webhook endpoint of',
  delivery_not_found: 'no such delivery for the endpoint of',
  invalid_webhook: '',
};

/** Fails with the operation's problem, naming the account. */
function failWith(result: EndpointProblem, username: string): never {
  if (result.problem === 'invalid_webhook') fail(result.message ?? 'invalid webhook request');
  return fail(`${PROBLEMS[result.problem]} ${JSON.stringify(username)}`);
}

/**
 * Where the rules a refused URL broke come from: the CLI reads the server's config file only
 * when MARKETPLACE_CONFIG names it here too, and otherwise goes by the defaults.
 */
function settingsHint(): string {
  const path = process.env.MARKETPLACE_CONFIG?.trim();
  return path
    ? `(webhooks.allowHttp and webhooks.allowHosts were read from MARKETPLACE_CONFIG=${path})`
    : '(MARKETPLACE_CONFIG is not set, so the defaults apply: https only, no private address; set it to the server’s config file to use its webhooks.allowHttp and webhooks.allowHosts)';
}

const json = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/**
 * `webhooks ...`: a seller's webhook endpoints, through the same functions as the admin API and
 * the workspace. Deliveries are made by the running server, which sees the queue within its poll.
 */
export function addWebhookCommands(program: Command, withStore: WithStore): Command {
  const withDeps = <T>(work: (deps: WebhookServiceDeps) => Promise<T>) =>
    withStore((store, config: CliConfig) =>
      work({
        store,
        keys: loadKeyMaterial(config),
        settings: config.webhooks,
        langs: [...new Set(config.variants.map((variant) => variant.lang))],
        wake: () => {},
      }),
    );
  const webhooks = program
    .command('webhooks')
    .description("Manage a seller's signed webhook endpoints (the same operations as the admin API)")
    .addHelpText(
      'after',
      examples(
        'npm run cli -- webhooks add jdoe https://example.com/hooks --events purchase.created,purchase.refunded',
        'npm run cli -- webhooks list jdoe',
        'npm run cli -- webhooks replay jdoe we_0123 --from 2026-01-01T00:00:00Z',
      ),
    );

  webhooks
    .command('add')
    .description('Add an endpoint; prints its id and its secret (shown this once)')
    .argument('<username>')
    .argument(
      '<url>',
      'https URL the events are POSTed to; refused when its host resolves to a private, loopback or reserved address (webhooks.allowHosts of MARKETPLACE_CONFIG lets some through)',
    )
    .requiredOption('--events <list>', `comma-separated: ${WEBHOOK_EVENT_TYPES.join(', ')}`)
    .option('--lang <lang>', 'the language variant of the payloads (the first configured by default)')
    .action(async (username: string, url: string, options: { events: string; lang?: string }) => {
      const result = await withDeps((deps) =>
        createEndpoint(deps, username, { url, events: options.events, lang: options.lang }),
      );
      if (!result.ok && result.field === 'url' && ['https', 'scheme', 'private'].includes(result.reason ?? '')) {
        fail(`${result.message}\n${settingsHint()}`);
      }
      if (!result.ok) failWith(result, username);
      process.stdout.write(`id: ${result.id}\nsecret: ${result.secret}\n(the secret is shown this once)\n`);
    });

  webhooks
    .command('list')
    .description("The account's endpoints and their health, as JSON")
    .argument('<username>')
    .action(async (username: string) => {
      const endpoints = await withStore((store) => listEndpoints(store, username));
      if (endpoints === undefined) fail(`no account named ${JSON.stringify(username)}`);
      json(endpoints);
    });

  webhooks
    .command('delete')
    .description('Delete an endpoint and its deliveries')
    .argument('<username>')
    .argument('<id>')
    .action(async (username: string, id: string) => {
      const result = await withStore((store) => deleteEndpoint(store, username, id));
      if (!result.ok) failWith(result, username);
      process.stdout.write(`${id}: deleted\n`);
    });

  webhooks
    .command('deliveries')
    .description("The endpoint's latest deliveries, as JSON")
    .argument('<username>')
    .argument('<id>')
    .action(async (username: string, id: string) => {
      const result = await withStore((store) => recentDeliveries(store, username, id, 50));
      if (!result.ok) failWith(result, username);
      json(result.deliveries);
    });

  webhooks
    .command('replay')
    .description("Send again every event of the endpoint's types recorded in a time range")
    .argument('<username>')
    .argument('<id>')
    .requiredOption('--from <time>', 'ISO 8601, such as 2026-01-31T00:00:00Z')
    .option('--to <time>', 'ISO 8601 (now by default)')
    .action(async (username: string, id: string, options: { from: string; to?: string }) => {
      const result = await withDeps((deps) => replayEvents(deps, username, id, options));
      if (!result.ok) failWith(result, username);
      process.stdout.write(`${id}: ${result.replayed} events to send again\n`);
    });

  webhooks
    .command('retry')
    .description('Send one delivery again now')
    .argument('<username>')
    .argument('<id>')
    .argument('<event-id>')
    .action(async (username: string, id: string, eventId: string) => {
      const result = await withDeps((deps) => retryDelivery(deps, username, id, eventId));
      if (!result.ok) failWith(result, username);
      process.stdout.write(`${eventId}: pending\n`);
    });

  webhooks
    .command('test')
    .description('Send a webhook.test event to the endpoint')
    .argument('<username>')
    .argument('<id>')
    .action(async (username: string, id: string) => {
      const result = await withDeps((deps) => sendTestEvent(deps, username, id));
      if (!result.ok) failWith(result, username);
      process.stdout.write(`${result.event_id}: queued\n`);
    });

  webhooks
    .command('rotate-secret')
    .description('Give the endpoint a new secret (shown this once); the old one signs beside it for a while')
    .argument('<username>')
    .argument('<id>')
    .action(async (username: string, id: string) => {
      const result = await withDeps((deps) => rotateEndpointSecret(deps, username, id));
      if (!result.ok) failWith(result, username);
      process.stdout.write(
        `secret: ${result.secret}\n(the secret is shown this once; the old one signs too until ${result.previous_secret_works_until ?? 'now'})\n`,
      );
    });

  for (const action of ['enable', 'disable'] as const) {
    webhooks
      .command(action)
      .description(
        action === 'enable' ? 'Enable an endpoint again (its failures forgotten)' : 'Stop delivering to an endpoint',
      )
      .argument('<username>')
      .argument('<id>')
      .action(async (username: string, id: string) => {
        const result = await withDeps((deps) => setEndpointEnabled(deps, username, id, action === 'enable'));
        if (!result.ok) failWith(result, username);
        process.stdout.write(`${id}: ${action}d\n`);
      });
  }
  return webhooks;
}
