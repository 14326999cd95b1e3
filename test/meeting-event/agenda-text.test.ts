import { describe, expect, test } from 'vitest';
import { AGENDA_MAX_CHARS, agendaText } from '../../src/meeting-event/agenda-text.js';
import { executableBlocks } from '../../src/vault/format/inert.js';
import { eventTitle } from '../../src/meeting-event/event-keys.js';
import { calendarEvent } from '../helpers/calendar-events.js';

const TEAMS = [
  'Quarterly budget review: decide on Q1 hiring.',
  '',
  '________________________________________________________________________________',
  'Microsoft Teams meeting',
  'Join on your computer, mobile app or room device',
  'Click here to join the meeting<https://teams.microsoft.com/l/meetup-join/19%3ameeting_abc>',
  'Meeting ID: 123 456 789 012',
  'Passcode: AbC123',
  'Download Teams<https://www.microsoft.com/microsoft-teams/download-app> | Join on the web<https://www.microsoft.com/microsoft-teams/join-a-meeting>',
  'Learn More<https://aka.ms/JoinTeamsMeeting> | Meeting options<https://teams.microsoft.com/meetingOptions/>',
  '________________________________________________________________________________',
].join('\r\n');

describe('agendaText', () => {
  test('Teams: the join block between the underscores goes, the agenda stays', () => {
    expect(agendaText(TEAMS)).toBe('Quarterly budget review: decide on Q1 hiring.');
  });

  test('Zoom: the invitation wording, the meeting id, the passcode and the dial-in numbers go', () => {
    const zoom = [
      'Agenda:',
      '1. Roadmap',
      '2. 2026-12-02 release',
      '',
      'Ann Lee is inviting you to a scheduled Zoom meeting.',
      'Join Zoom Meeting',
      'https://us02web.zoom.us/j/84012345678?pwd=abc',
      '',
      'Meeting ID: 840 1234 5678',
      'Passcode: 123456',
      '---',
      'One tap mobile',
      '+13126266799,,84012345678# US (Chicago)',
      '+16469313860,,84012345678# US',
    ].join('\n');
    expect(agendaText(zoom)).toBe('Agenda:\n1. Roadmap\n2. 2026-12-02 release');
  });

  test('Google Meet: the block between Google’s -::~:~ lines goes, even unclosed', () => {
    const meet = 'Plan the offsite\n\n-::~:~::~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~:~::~:~::-\nJoin with Google Meet: https://meet.google.com/abc-defg-hij\nJoin by phone\n(US) +1 234-567-8900 PIN: 123456789\nLearn more about Meet at: https://support.google.com/a/users/answer/9282720';
    expect(agendaText(meet)).toBe('Plan the offsite');
  });

  test('Webex: the join lines go', () => {
    const webex = 'Vendor call about the contract.\n\nJoin meeting\nhttps://acme.webex.com/acme/j.php?MTID=m1234\nMeeting number (access code): 2630 123 4567\nMeeting password: xyz\nJoin by phone\n+1-408-525-6800 United States Toll';
    expect(agendaText(webex)).toBe('Vendor call about the contract.');
  });

  test('HTML is reduced to its text: paragraphs and breaks as lines, lists as items, entities decoded, scripts and styles gone', () => {
    const html = '<html><head><style>p{color:red}</style></head><body><p>Hello&nbsp;team &amp; guests</p><ul><li>Budget</li><li>Hiring &lt;Q1&gt;</li></ul><script>alert(1)</script><div>See <a href="https://wiki.example/x">the wiki</a><br>Thanks&#33;</div></body></html>';
    expect(agendaText(html)).toBe('Hello team & guests\n\n- Budget\n- Hiring <Q1>\n\nSee the wiki (https://wiki.example/x)\nThanks!');
  });

  test('Outlook HTML with the Teams block: both reduced', () => {
    const html = `<p>Sprint review</p><div>${'_'.repeat(80)}</div><div><b>Microsoft Teams meeting</b></div><div><a href="https://teams.microsoft.com/l/meetup-join/x">Click here to join the meeting</a></div><div>${'_'.repeat(80)}</div>`;
    expect(agendaText(html)).toBe('Sprint review');
  });

  test('at most 2,000 characters, cut at a word, from a 5 MB description', () => {
    const agenda = agendaText('word '.repeat(1_000_000));
    expect(agenda.length).toBeLessThanOrEqual(AGENDA_MAX_CHARS);
    expect(agenda.endsWith('word…')).toBe(true);
  });

  test('inert: a dataviewjs fence, Dataview inline JavaScript and a Templater tag do not run', () => {
    const agenda = agendaText('Hi\n```dataviewjs\ndv.el("p", app.vault)\n```\n`$= dv.pages().length` <% tp.file.title %>');
    expect(executableBlocks(agenda)).toEqual([]);
    expect(agenda).toContain('```text');
    expect(agenda).toContain('<\\%');
    const html = agendaText('<pre>```dataviewjs\ndv.el(1)\n```</pre>');
    expect(executableBlocks(html)).toEqual([]);
  });

  test("an invitation's Dataview inline query shows no other note: `= …` is written `\\= …`, in the agenda and a title", () => {
    expect(agendaText('Budget: `= [[Salaries]].total`')).toBe('Budget: `\\= [[Salaries]].total`');
    expect(eventTitle(calendarEvent({ title: 'Pay `= [[Salaries]].total`', start: '2026-12-09T09:00:00Z', end: '2026-12-09T10:00:00Z' }))).toBe('Pay `\\= [[Salaries]].total`');
  });

  test('at most 2,000 characters once made inert too: escapes never push it over', () => {
    const agenda = agendaText('<% tp.file.title %> `$= dv.pages().length` '.repeat(200));
    expect(agenda.length).toBeLessThanOrEqual(AGENDA_MAX_CHARS);
    expect(agenda).not.toContain('<%');
    expect(executableBlocks(agenda)).toEqual([]);
  });

  test('an empty or boilerplate-only description is an empty agenda', () => {
    expect(agendaText('')).toBe('');
    expect(agendaText(TEAMS.split('\r\n').slice(2).join('\n'))).toBe('');
  });
});
