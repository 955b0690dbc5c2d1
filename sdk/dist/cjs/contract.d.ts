/** Account: SPEC 3, keys in this order. */
export interface Account {
    name: {
        firstname: string;
        lastname: string;
        /** First and last name joined by one space, trimmed */
        full_name: string;
    };
    username: string;
    email: string;
    /** An amount in the variant's currency, at most two decimals */
    balance: number;
    /** The variant's ISO 4217 currency code */
    currency: string;
    profile: {
        heading: string;
        description: string;
        contact: {
            email: string;
        };
        /** Network name to link, keys in alphabetical order; {} when none */
        social_links: Record<string, string>;
        media: {
            avatar: string;
            cover: string;
        };
    };
    /** ISO 8601 UTC with milliseconds, such as 2024-05-01T12:00:00.000Z */
    registered_at: string;
}
/** ImageMedia: SPEC 3, keys in this order. */
export interface ImageMedia {
    thumbnail: string;
    preview_image: string;
    /** Only when the item has at least one screenshot */
    screenshots?: string[];
}
/** VideoMedia: SPEC 3, keys in this order. */
export interface VideoMedia {
    thumbnail: string;
    preview_image: string;
    preview_video: string;
    /** Only when the item has at least one screenshot */
    screenshots?: string[];
}
/** AudioMedia: SPEC 3, keys in this order. */
export interface AudioMedia {
    thumbnail: string;
    preview_audio: string;
    /** Only when the item has at least one screenshot */
    screenshots?: string[];
}
/** Item: SPEC 3, keys in this order. */
export interface Item {
    id: number;
    name: string;
    description: string;
    category: string;
    sub_category: string;
    options: string[];
    /** major.minor.patch */
    version: string;
    demo_link: string;
    tags: string[];
    /** By the item's preview type: image, video or audio */
    media: ImageMedia | VideoMedia | AudioMedia;
    price: {
        /** An amount in the variant's currency, at most two decimals */
        regular: number;
        /** An amount in the variant's currency, at most two decimals */
        extended: number;
    };
    /** The variant's ISO 4217 currency code */
    currency: string;
    /** ISO 8601 UTC with milliseconds, such as 2024-05-01T12:00:00.000Z */
    published_at: string;
}
/** Purchase: SPEC 3, keys in this order. */
export interface Purchase {
    /** The code as stored */
    purchase_code: string;
    license_type: 'Regular' | 'Extended';
    /** The price paid, in the variant's currency, at most two decimals */
    price: number;
    /** The variant's ISO 4217 currency code */
    currency: string;
    item: Item;
    /** Only when support is enabled, the item is supported and the purchase has an end date */
    supported_until?: string;
    downloaded: boolean;
    /** ISO 8601 UTC with milliseconds, such as 2024-05-01T12:00:00.000Z */
    date: string;
}
/** PurchaseActivity: purchase-code activity (docs/api.md), keys in this order. */
export interface PurchaseActivity {
    /** The code as stored */
    purchase_code: string;
    /** Validations of the code over the retained days (90 by default) */
    validations: number;
    /** Distinct client networks (IPv4 /24, IPv6 /48): exact below 1,024, then estimated within 2 % */
    networks: number;
    /** The first validation kept; null when none */
    first_seen: string | null;
    /** The last validation; null when none */
    last_seen: string | null;
    /** The last 30 days with any validation, newest first */
    days: {
        /** A UTC day, YYYY-MM-DD */
        date: string;
        /** Validations that day */
        validations: number;
        /** Distinct networks that day */
        networks: number;
    }[];
}
/** ActiveCode: purchase-code activity (docs/api.md), keys in this order. */
export interface ActiveCode {
    /** The code as stored */
    purchase_code: string;
    item_id: number;
    purchase_status: 'active' | 'refunded' | 'cancelled';
    /** Validations within the window */
    validations: number;
    /** Distinct client networks (IPv4 /24, IPv6 /48): exact below 1,024, then estimated within 2 % */
    networks: number;
    /** The first validation within the window */
    first_seen: string;
    /** The last validation within the window */
    last_seen: string;
}
/** Activation: activations (docs/api.md), keys in this order. */
export interface Activation {
    /** The activation id */
    id: string;
    /** What the client named the install by (a domain, a machine id), trimmed */
    instance: string;
    /** When the instance was activated */
    created_at: string;
}
/** ActivationCounts: activations (docs/api.md), keys in this order. */
export interface ActivationCounts {
    /** Instances the code holds now */
    used: number;
    /** The item's activation limit; null when it has none */
    limit: number | null;
}
/** MarketbobAccount: MarketBob's own API (shape 'marketbob'), keys in this order. */
export interface MarketbobAccount {
    name: {
        firstname: string;
        lastname: string;
        /** First and last name joined by a space when both are set, else the username, else the part of the email before @ */
        full_name: string;
    };
    username: string;
    email: string;
    /** The stored balance, unrounded */
    balance: number;
    /** The marketplace's currency code setting */
    currency: string;
    profile: {
        /** null when not set */
        heading: string | null;
        /** null when not set */
        description: string | null;
        contact: {
            /** null when not set */
            email: string | null;
        };
        /** The stored object as it is, every key kept; null when not set */
        social_links: Record<string, unknown> | null;
        media: {
            /** The user's avatar as a URL, else the default avatar's; null when neither is set */
            avatar: string | null;
            /** The user's cover as a URL, else the default cover's; null when neither is set */
            cover: string | null;
        };
    };
    /** ISO 8601 UTC with six decimals, such as 2024-02-01T16:00:00.000000Z */
    registered_at: string;
}
/** MarketbobImageMedia: MarketBob's own API (shape 'marketbob'), keys in this order. */
export interface MarketbobImageMedia {
    /** The thumbnail as a URL, else the preview image's; null when neither is set */
    thumbnail: string | null;
    /** A URL; null when not set */
    preview_image: string | null;
    /** URLs keyed "0", "1", ... in order; null when the item has none */
    screenshots: Record<string, string> | null;
}
/** MarketbobVideoMedia: MarketBob's own API (shape 'marketbob'), keys in this order. */
export interface MarketbobVideoMedia {
    /** The thumbnail as a URL, else the preview image's; null when neither is set */
    thumbnail: string | null;
    /** A URL; null when not set */
    preview_image: string | null;
    /** A URL; null when not set */
    preview_video: string | null;
}
/** MarketbobAudioMedia: MarketBob's own API (shape 'marketbob'), keys in this order. */
export interface MarketbobAudioMedia {
    /** The thumbnail as a URL, else the preview image's; null when neither is set */
    thumbnail: string | null;
    /** A URL; null when not set */
    preview_audio: string | null;
}
/** MarketbobItem: MarketBob's own API (shape 'marketbob'), keys in this order. */
export interface MarketbobItem {
    id: number;
    name: string;
    description: string;
    /** The category's name */
    category: string;
    /** The sub-category's name; null when not set */
    sub_category: string | null;
    /** The stored JSON as it is (an object or a list); null when not set */
    options: Record<string, unknown> | unknown[] | null;
    /** As stored; null when not set */
    version: string | null;
    /** As stored; null when not set */
    demo_link: string | null;
    /** The stored comma-separated tags, unchanged */
    tags: string;
    /** By the item's preview type: image (with screenshots), video or audio */
    media: MarketbobImageMedia | MarketbobVideoMedia | MarketbobAudioMedia;
    price: {
        /** The regular price plus the buyer fee (the active discount when there is one), unrounded */
        regular: number;
        /** The extended price plus the buyer fee (the active discount when there is one), unrounded */
        extended: number;
    };
    /** The marketplace's currency code setting */
    currency: string;
    /** ISO 8601 UTC with six decimals, such as 2024-02-01T16:00:00.000000Z */
    published_at: string;
}
/** MarketbobPurchase: MarketBob's own API (shape 'marketbob'), keys in this order. */
export interface MarketbobPurchase {
    /** The code as stored */
    purchase_code: string;
    license_type: 'Regular' | 'Extended';
    /** The price paid, unrounded */
    price: number;
    /** The marketplace's currency code setting */
    currency: string;
    item: MarketbobItem;
    /** Only when support is enabled and the purchase has a support end date */
    supported_until?: string;
    downloaded: boolean;
    /** ISO 8601 UTC with six decimals, such as 2024-02-01T16:00:00.000000Z */
    date: string;
}
/** An item's media, by its preview type. */
export type ItemMedia = ImageMedia | VideoMedia | AudioMedia;
/** An item's media in MarketBob's shape, by its preview type. */
export type MarketbobItemMedia = MarketbobImageMedia | MarketbobVideoMedia | MarketbobAudioMedia;
/** Every error answer: `{ status: <error word>, msg }`. */
export interface ErrorBody {
    status: string;
    msg: string;
}
/** The body of a `purchase.created` webhook: A new purchase of one of the seller's items. */
export interface PurchaseCreatedEvent {
    /** The event id, also sent as the webhook-id header: the same on every retry, so a receiver can skip one seen before */
    id: string;
    type: 'purchase.created';
    /** When the change was made (not when it was sent) */
    timestamp: string;
    /** The username of the seller the event is about */
    account: string;
    data: {
        purchase: {
            /** The code as stored */
            purchase_code: string;
            license_type: 'Regular' | 'Extended';
            /** The price paid, in the variant's currency, at most two decimals */
            price: number;
            /** The variant's ISO 4217 currency code */
            currency: string;
            /** The item as it is now; null when it is no longer this seller's (moved to another, or deleted) */
            item: Item | null;
            /** Only when support is enabled, the item is supported and the purchase has an end date */
            supported_until?: string;
            downloaded: boolean;
            /** ISO 8601 UTC with milliseconds, such as 2024-05-01T12:00:00.000Z */
            date: string;
        };
        /** The purchase's status after the change */
        status: 'active' | 'refunded' | 'cancelled';
    };
}
/** The body of a `purchase.refunded` webhook: A purchase was refunded: its code no longer validates. */
export interface PurchaseRefundedEvent {
    /** The event id, also sent as the webhook-id header: the same on every retry, so a receiver can skip one seen before */
    id: string;
    type: 'purchase.refunded';
    /** When the change was made (not when it was sent) */
    timestamp: string;
    /** The username of the seller the event is about */
    account: string;
    data: {
        purchase: {
            /** The code as stored */
            purchase_code: string;
            license_type: 'Regular' | 'Extended';
            /** The price paid, in the variant's currency, at most two decimals */
            price: number;
            /** The variant's ISO 4217 currency code */
            currency: string;
            /** The item as it is now; null when it is no longer this seller's (moved to another, or deleted) */
            item: Item | null;
            /** Only when support is enabled, the item is supported and the purchase has an end date */
            supported_until?: string;
            downloaded: boolean;
            /** ISO 8601 UTC with milliseconds, such as 2024-05-01T12:00:00.000Z */
            date: string;
        };
        /** The purchase's status after the change */
        status: 'active' | 'refunded' | 'cancelled';
    };
}
/** The body of a `purchase.cancelled` webhook: A purchase was cancelled: its code no longer validates. */
export interface PurchaseCancelledEvent {
    /** The event id, also sent as the webhook-id header: the same on every retry, so a receiver can skip one seen before */
    id: string;
    type: 'purchase.cancelled';
    /** When the change was made (not when it was sent) */
    timestamp: string;
    /** The username of the seller the event is about */
    account: string;
    data: {
        purchase: {
            /** The code as stored */
            purchase_code: string;
            license_type: 'Regular' | 'Extended';
            /** The price paid, in the variant's currency, at most two decimals */
            price: number;
            /** The variant's ISO 4217 currency code */
            currency: string;
            /** The item as it is now; null when it is no longer this seller's (moved to another, or deleted) */
            item: Item | null;
            /** Only when support is enabled, the item is supported and the purchase has an end date */
            supported_until?: string;
            downloaded: boolean;
            /** ISO 8601 UTC with milliseconds, such as 2024-05-01T12:00:00.000Z */
            date: string;
        };
        /** The purchase's status after the change */
        status: 'active' | 'refunded' | 'cancelled';
    };
}
/** The body of a `purchase.downloaded` webhook: A purchase was downloaded for the first time. */
export interface PurchaseDownloadedEvent {
    /** The event id, also sent as the webhook-id header: the same on every retry, so a receiver can skip one seen before */
    id: string;
    type: 'purchase.downloaded';
    /** When the change was made (not when it was sent) */
    timestamp: string;
    /** The username of the seller the event is about */
    account: string;
    data: {
        purchase: {
            /** The code as stored */
            purchase_code: string;
            license_type: 'Regular' | 'Extended';
            /** The price paid, in the variant's currency, at most two decimals */
            price: number;
            /** The variant's ISO 4217 currency code */
            currency: string;
            /** The item as it is now; null when it is no longer this seller's (moved to another, or deleted) */
            item: Item | null;
            /** Only when support is enabled, the item is supported and the purchase has an end date */
            supported_until?: string;
            downloaded: boolean;
            /** ISO 8601 UTC with milliseconds, such as 2024-05-01T12:00:00.000Z */
            date: string;
        };
        /** The purchase's status after the change */
        status: 'active' | 'refunded' | 'cancelled';
    };
}
/** The body of a `api_key.rotated` webhook: The seller's API key was replaced. */
export interface ApiKeyRotatedEvent {
    /** The event id, also sent as the webhook-id header: the same on every retry, so a receiver can skip one seen before */
    id: string;
    type: 'api_key.rotated';
    /** When the change was made (not when it was sent) */
    timestamp: string;
    /** The username of the seller the event is about */
    account: string;
    data: {
        /** Until when the replaced key keeps working; null when it stopped at once. The key itself is never sent */
        old_key_works_until: string | null;
    };
}
/** The body of a `activation.created` webhook: An instance was activated on one of the seller’s purchase codes. */
export interface ActivationCreatedEvent {
    /** The event id, also sent as the webhook-id header: the same on every retry, so a receiver can skip one seen before */
    id: string;
    type: 'activation.created';
    /** When the change was made (not when it was sent) */
    timestamp: string;
    /** The username of the seller the event is about */
    account: string;
    data: {
        /** The code as stored */
        purchase_code: string;
        activation: Activation;
        activations: ActivationCounts;
    };
}
/** The body of a `activation.released` webhook: An activation ended: released, or its purchase refunded or cancelled. */
export interface ActivationReleasedEvent {
    /** The event id, also sent as the webhook-id header: the same on every retry, so a receiver can skip one seen before */
    id: string;
    type: 'activation.released';
    /** When the change was made (not when it was sent) */
    timestamp: string;
    /** The username of the seller the event is about */
    account: string;
    data: {
        /** The code as stored */
        purchase_code: string;
        activation: Activation;
        /** released: by the client or the seller; refunded, cancelled: the purchase ended it */
        reason: 'released' | 'refunded' | 'cancelled';
    };
}
/** The body of a `webhook.test` webhook: Sent on request (the workspace's "Send test event"), to one endpoint, whatever it subscribes to. */
export interface WebhookTestEvent {
    /** The event id, also sent as the webhook-id header: the same on every retry, so a receiver can skip one seen before */
    id: string;
    type: 'webhook.test';
    /** When the change was made (not when it was sent) */
    timestamp: string;
    /** The username of the seller the event is about */
    account: string;
    data: {
        message: string;
    };
}
/** Any webhook body, told apart by its `type`. */
export type WebhookEvent = PurchaseCreatedEvent | PurchaseRefundedEvent | PurchaseCancelledEvent | PurchaseDownloadedEvent | ApiKeyRotatedEvent | ActivationCreatedEvent | ActivationReleasedEvent | WebhookTestEvent;
/** "No items" in every language: items() answers [] for it. */
export declare const NO_ITEMS_MESSAGES: readonly string[];
/** "Item not found" in every language: item() answers null for it. */
export declare const ITEM_NOT_FOUND_MESSAGES: readonly string[];
/** "Invalid purchase code" in every language: validatePurchase() and purchaseActivity() answer null for it. */
export declare const INVALID_PURCHASE_CODE_MESSAGES: readonly string[];
/** "Activation not found" in every language: deactivate() answers null for it. */
export declare const ACTIVATION_NOT_FOUND_MESSAGES: readonly string[];
/** MarketBob's "No items found" in every language: a `marketbob` client's items() answers [] for it. */
export declare const MARKETBOB_NO_ITEMS_MESSAGES: readonly string[];
/** MarketBob's "Item Not Found" in every language: a `marketbob` client's item() answers null for it. */
export declare const MARKETBOB_ITEM_NOT_FOUND_MESSAGES: readonly string[];
/** MarketBob's "Invalid purchase code" in every language: a `marketbob` client's validatePurchase() answers null for it. */
export declare const MARKETBOB_INVALID_PURCHASE_CODE_MESSAGES: readonly string[];
