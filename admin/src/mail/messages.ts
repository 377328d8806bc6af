import type { Notice } from '@adnet/schemas/accounts';

/** A rendered message: plain text only, so no markup of ours or of a user's can be hostile in a mail client. */
export interface MailMessage {
  subject: string;
  text: string;
}

/** What rendering needs beside the notice: where links point, and the link token when the kind has one. */
export interface RenderContext {
  baseUrl: string;
  /** The one-time token of a verification or reset link. */
  token?: string;
  /** Lifetime of that link, for the text. */
  ttlText?: string;
  /** How long a creative sent for review now waits (schemas/src/moderation-wait.ts), for a rejection's text. */
  moderationWait?: string;
}

const usd = (cents: number): string => `$${(cents / 100).toFixed(2)}`;
/** A user's text on one line, bounded: a rejection reason cannot add headers-looking lines or run on. */
const oneLine = (s: string, max = 300): string => s.replace(/[\r\n\t]+/g, ' ').slice(0, max);

const FOOTER = '\n\n--\nThis is an automatic message from your ad network account.';

/**
 * The subject and text of each notice. Links carry their token after `#`, so it reaches the cabinet's
 * script but never a server log or a Referer header.
 */
export function renderNotice(n: Notice, ctx: RenderContext): MailMessage {
  const cabinet = `${ctx.baseUrl}/cabinet`;
  switch (n.kind) {
    case 'verify_email':
      return {
        subject: 'Confirm your email address',
        text: `Welcome! Confirm your email address by opening this link${ctx.ttlText ? ` (valid ${ctx.ttlText})` : ''}:\n\n${cabinet}/verify-email#token=${ctx.token ?? ''}\n\nIf you did not sign up, ignore this message.${FOOTER}`,
      };
    case 'signup_existing':
      return {
        subject: 'Someone tried to sign up with your email',
        text: `Someone tried to create an account with this email address, which already has one.\nIf it was you, sign in at ${cabinet}/signin or reset your password at ${cabinet}/reset-password.\nIf it was not, you need do nothing.${FOOTER}`,
      };
    case 'password_reset':
      return {
        subject: 'Reset your password',
        text: `To choose a new password, open this link${ctx.ttlText ? ` (valid ${ctx.ttlText}, once)` : ''}:\n\n${cabinet}/reset-password#token=${ctx.token ?? ''}\n\nSetting a new password signs you out everywhere. If you did not ask for this, ignore this message: your password stays as it is.${FOOTER}`,
      };
    case 'password_changed':
      return {
        subject: 'Your password was changed',
        text: `The password of your account was just changed, and its other sessions were signed out.\nIf this was not you, reset your password at ${cabinet}/reset-password at once.${FOOTER}`,
      };
    case 'low_balance':
      return {
        subject: `Low balance: ${usd(n.balance_cents)}`,
        text: `Your balance is ${usd(n.balance_cents)}, below the ${usd(n.threshold_cents)} you asked to be told about. Campaigns stop when it reaches zero.\nAdd funds at ${cabinet}/billing#add-funds, or change the threshold at ${cabinet}/account.${FOOTER}`,
      };
    case 'creative_moderated':
      return n.status === 'approved'
        ? {
            subject: `Creative approved: ${oneLine(n.title, 80)}`,
            text: `Creative #${n.creative_id} ("${oneLine(n.title, 80)}") of campaign #${n.campaign_id} was approved and can serve.\n${cabinet}/campaigns/${n.campaign_id}${FOOTER}`,
          }
        : {
            subject: `Creative rejected: ${oneLine(n.title, 80)}`,
            text: `Creative #${n.creative_id} ("${oneLine(n.title, 80)}") of campaign #${n.campaign_id} was rejected.\nReason: ${oneLine(n.reason ?? '')}\nEdit it to send it for review again${ctx.moderationWait ? ` (review takes ${ctx.moderationWait})` : ''}: ${cabinet}/campaigns/${n.campaign_id}${FOOTER}`,
          };
    case 'site_moderated':
      return n.status === 'approved'
        ? {
            subject: `Site approved: ${n.domain}`,
            text: `Your site ${n.domain} (#${n.site_id}) was approved: its zones serve ads now.\n${cabinet}/sites${FOOTER}`,
          }
        : {
            subject: `Site rejected: ${n.domain}`,
            text: `Your site ${n.domain} (#${n.site_id}) was rejected.\nReason: ${oneLine(n.reason ?? '')}\n${cabinet}/sites${FOOTER}`,
          };
    case 'postback_failing':
      return {
        subject: `Postbacks failing for campaign #${n.campaign_id}`,
        text: `Our postbacks to your tracker for campaign #${n.campaign_id} are failing: conversion #${n.conversion_id} could not be reported after every retry.\nCheck the postback URL and the attempts at ${cabinet}/conversions. You get this notice at most once a day per campaign.${FOOTER}`,
      };
    case 'rule_actions': {
      const lines = n.actions.map(
        (a) =>
          `- campaign #${a.campaign_id}, rule "${oneLine(a.rule_name, 120)}": ${a.action} on ${oneLine(a.target, 80)} (${a.outcome}: ${oneLine(a.detail, 200)})`,
      );
      if (n.more > 0) lines.push(`- and ${n.more} more`);
      const count = n.actions.length + n.more;
      return {
        subject: `Your automated rules acted ${count} time${count === 1 ? '' : 's'}`,
        text: `Your automated rules just did this:\n${lines.join('\n')}\n\nEach campaign's rule log lists every action, and undoes one: ${cabinet}/campaigns${FOOTER}`,
      };
    }
    case 'payout_paid':
      return {
        subject: `Payout sent: ${usd(n.amount_cents)}`,
        text: `Payout #${n.payout_id} of ${usd(n.amount_cents)} was sent.\nReference: ${oneLine(n.reference, 200)}${FOOTER}`,
      };
  }
}
