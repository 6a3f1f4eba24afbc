/**
 * Event types on the notify channel (ring records, or `event` notifications on stdio).
 * Types below 0x100 are the kernel's; plugins may use 0x100 and up among themselves.
 * Payloads of the kernel's events are UTF-8 JSON; hot paths may define binary ones.
 */
export const EventType = {
  /** A facility became ready or went away: {facility, ready}. */
  FacilityChanged: 1,
  /** Configuration changed: {keys}. */
  ConfigChanged: 2,
  /** Cancel work in progress: {id}. */
  Cancel: 3,
  /** A message for a channel to deliver: {conv, text, ...}. */
  MessageOut: 4,
  /** First type free for plugins. */
  User: 0x100,
} as const;
