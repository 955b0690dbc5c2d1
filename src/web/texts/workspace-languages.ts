import type { Lang } from '../../variants/languages.js';
import { en } from './en.js';
import { pt } from './pt.js';
import type { WorkspaceTexts } from './workspace-texts.js';

/** The workspace's texts for each language a variant may be configured with. */
export const workspaceLanguages: Readonly<Record<Lang, WorkspaceTexts>> = { en, pt };
