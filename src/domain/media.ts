/** Which media an item previews with (SPEC 3): the item table's `preview_type` takes these. */
export const PREVIEW_TYPES = ['image', 'video', 'audio'] as const;
export type PreviewType = (typeof PREVIEW_TYPES)[number];

/** The preview media fields, in the order a response lists them after `thumbnail`. */
export const PREVIEW_FIELDS = ['preview_image', 'preview_video', 'preview_audio'] as const;
export type PreviewField = (typeof PREVIEW_FIELDS)[number];

/** Which preview fields an item of each preview type shows (SPEC 3, the media table). */
export const PREVIEW_FIELDS_BY_TYPE: Readonly<Record<PreviewType, readonly PreviewField[]>> = {
  image: ['preview_image'],
  video: ['preview_image', 'preview_video'],
  audio: ['preview_audio'],
};

export function allowsPreviewField(type: PreviewType, field: PreviewField): boolean {
  return PREVIEW_FIELDS_BY_TYPE[type].includes(field);
}
