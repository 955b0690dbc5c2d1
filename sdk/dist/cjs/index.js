"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.WebhookVerificationError = exports.verifyWebhook = exports.MarketplaceApiError = exports.createClient = void 0;
var client_js_1 = require("./client.js");
Object.defineProperty(exports, "createClient", { enumerable: true, get: function () { return client_js_1.createClient; } });
Object.defineProperty(exports, "MarketplaceApiError", { enumerable: true, get: function () { return client_js_1.MarketplaceApiError; } });
var webhooks_js_1 = require("./webhooks.js");
Object.defineProperty(exports, "verifyWebhook", { enumerable: true, get: function () { return webhooks_js_1.verifyWebhook; } });
Object.defineProperty(exports, "WebhookVerificationError", { enumerable: true, get: function () { return webhooks_js_1.WebhookVerificationError; } });
