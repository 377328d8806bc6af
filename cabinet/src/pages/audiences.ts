import { api } from '../api.ts';
import type { Outputs } from '../api.ts';
import { actionButton, h, notify, table } from '../dom.ts';
import { buildForm, checked, num, text } from '../form.ts';
import type { PageContext } from '../router.ts';
import { copyBlock } from './publisher.ts';

type Audience = Outputs['adv']['audiences']['list']['audiences'][number];

const SOURCES = ['pixel', 'clicked', 'converted', 'viewed'] as const;
const SOURCE_TEXT: Record<(typeof SOURCES)[number], string> = {
  pixel: 'Visited my pages (audience pixel)',
  clicked: 'Clicked an ad of these campaigns',
  converted: 'Converted after a click on these campaigns',
  viewed: 'Saw an ad of these campaigns',
};

const SOURCE_SHORT: Record<(typeof SOURCES)[number], string> = {
  pixel: 'Visited my pages',
  clicked: 'Clicked',
  converted: 'Converted',
  viewed: 'Saw an ad',
};

/** The tag the advertiser pastes into its pages. */
const snippet = (url: string): string => `<img src="${url}" width="1" height="1" alt="" style="display:none">`;

function audienceRow(a: Audience, campaigns: Map<string, string>, after: () => Promise<void>) {
  // A pixel's snippet is long: it goes below the table, where it may wrap on a phone.
  const what =
    a.source === 'pixel'
      ? 'pixel (snippet below)'
      : a.campaign_ids.map((id) => campaigns.get(String(id)) ?? `#${id}`).join(', ');
  return [
    a.name,
    SOURCE_TEXT[a.source],
    what,
    `${a.lifetime_days} days`,
    actionButton(
      'Delete',
      async () => {
        await api.adv.audiences.delete.mutate({ id: a.id });
        notify(`Audience ${a.name} deleted`);
        await after();
      },
      { class: 'danger', 'aria-label': `Delete audience ${a.name}` },
    ),
  ];
}

/** Audiences (docs/audiences.md): who saw, clicked or converted on the campaigns, or visited the pages with the pixel. */
export async function audiencesPage(ctx: PageContext): Promise<void> {
  const [{ audiences }, { campaigns }] = await Promise.all([
    api.adv.audiences.list.query(),
    api.adv.campaigns.list.query(),
  ]);
  const names = new Map(
    campaigns.filter((c) => c.status !== 'archived').map((c) => [String(c.id), `${c.name} (#${c.id})`]),
  );
  const again = () => audiencesPage(ctx);
  const pixels = audiences.filter((a) => a.pixel_url !== null);
  const { form } = buildForm({
    label: 'New audience',
    submit: 'Create audience',
    fields: [
      { name: 'name', label: 'Name', required: true },
      {
        name: 'source',
        label: 'Who',
        type: 'select',
        options: SOURCES,
        // Short: a select is as wide as its longest option, and must fit a phone.
        optionLabel: (o) => SOURCE_SHORT[o as (typeof SOURCES)[number]],
        value: 'clicked',
      },
      {
        name: 'campaign_ids',
        label: 'Campaigns (not for the pixel)',
        type: 'picker',
        options: [...names.keys()],
        optionLabel: (id) => names.get(id) ?? `#${id}`,
        hint: 'Type part of a name or an id to find it',
      },
      { name: 'lifetime_days', label: 'Membership lasts (days, 1-540)', type: 'number', step: '1', value: '30' },
    ],
    async onSubmit(d) {
      const source = text(d, 'source') as (typeof SOURCES)[number];
      const ids = checked(d, 'campaign_ids').map(Number);
      const made = await api.adv.audiences.create.mutate({
        name: text(d, 'name'),
        source,
        ...(source === 'pixel' ? {} : { campaign_ids: ids }),
        lifetime_days: num(d, 'lifetime_days'),
      });
      notify(made.pixel_url ? 'Audience created: place its pixel on your pages' : 'Audience created');
      await again();
    },
  });
  ctx.main.replaceChildren(
    h('h1', {}, 'Audiences'),
    h(
      'p',
      {},
      'A campaign can serve only the members of audiences it includes, and never those of audiences it excludes (set on the campaign). A visitor stays a member for the audience’s lifetime after the last visit, click, view or conversion.',
    ),
    table(
      ['Name', 'Who', 'Campaigns or pixel', 'Lifetime', ''],
      audiences.map((a) => audienceRow(a, names, again)),
      'Your audiences',
    ),
    ...pixels.map((a) =>
      h('div', {}, h('h3', {}, `Pixel of ${a.name}`), copyBlock(`Pixel of ${a.name}`, snippet(a.pixel_url as string))),
    ),
    h('h2', {}, 'New audience'),
    form,
  );
}
