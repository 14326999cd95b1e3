import { describe, expect, test } from 'vitest';
import { eventForMeeting, eventInProgress } from '../../../src/calendar/match/event-for-meeting.js';
import { calendarEvent } from '../../helpers/calendar-events.js';

const at = (hhmm: string) => new Date(`2026-12-02T${hhmm}:00Z`);
const ev = (uid: string, from: string, to: string) => calendarEvent({ uid, title: uid, start: at(from), end: at(to) });

describe('eventForMeeting: a finished meeting', () => {
  test('the event that overlaps most wins', () => {
    const events = [ev('a', '08:30', '09:15'), ev('b', '09:00', '10:00'), ev('c', '09:45', '10:30')];
    expect(eventForMeeting(events, { start: at('09:02'), end: at('09:58') }, at('12:00'))?.uid).toBe('b');
  });

  test('an overlap of exactly half the shorter span counts; less does not', () => {
    const events = [ev('a', '09:00', '10:00')];
    // meeting 09:30-10:30: overlap 30 min = half of 60
    expect(eventForMeeting(events, { start: at('09:30'), end: at('10:30') }, at('12:00'))?.uid).toBe('a');
    // meeting 09:31-10:31: overlap 29 min < 30
    expect(eventForMeeting(events, { start: at('09:31'), end: at('10:31') }, at('12:00'))).toBeUndefined();
  });

  test('half of the SHORTER: a short meeting inside a long event, and a short event inside a long recording', () => {
    expect(eventForMeeting([ev('day', '08:00', '17:00')], { start: at('10:00'), end: at('10:20') }, at('18:00'))?.uid).toBe('day');
    expect(eventForMeeting([ev('standup', '09:00', '09:15')], { start: at('08:30'), end: at('11:00') }, at('18:00'))?.uid).toBe('standup');
  });

  test('no overlap, or only touching ends, matches nothing', () => {
    const events = [ev('before', '08:00', '09:00'), ev('after', '10:00', '11:00')];
    expect(eventForMeeting(events, { start: at('09:00'), end: at('10:00') }, at('12:00'))).toBeUndefined();
    expect(eventForMeeting([], { start: at('09:00'), end: at('10:00') }, at('12:00'))).toBeUndefined();
  });

  test('equal overlaps: the event that began nearer the meeting', () => {
    const events = [ev('block', '08:00', '12:00'), ev('sync', '09:00', '12:00')];
    expect(eventForMeeting(events, { start: at('09:05'), end: at('09:35') }, at('13:00'))?.uid).toBe('sync');
  });

  test('a meeting whose end is before its start is a meeting of no length, matched by nothing late', () => {
    expect(eventForMeeting([ev('a', '09:00', '10:00')], { start: at('09:30'), end: at('09:00') }, at('12:00'))).toBeUndefined();
  });
});

describe('eventForMeeting: a meeting only just started (no end yet)', () => {
  test('the event in progress, even one starting a few minutes later', () => {
    const events = [ev('next', '10:00', '11:00')];
    expect(eventForMeeting(events, { start: at('09:55') }, at('09:55'))?.uid).toBe('next');
  });

  test('of two in progress, the later-starting: back to back, and a meeting inside a block', () => {
    expect(eventForMeeting([ev('first', '09:00', '10:00'), ev('second', '10:00', '11:00')], { start: at('09:58') }, at('09:58'))?.uid).toBe('second');
    expect(eventForMeeting([ev('sync', '09:30', '10:00'), ev('block', '08:00', '12:00')], { start: at('09:31') }, at('09:31'))?.uid).toBe('sync');
  });

  test('an event starting more than ten minutes after the meeting, or already ended, is not in progress', () => {
    expect(eventForMeeting([ev('later', '10:11', '11:00')], { start: at('10:00') }, at('10:00'))).toBeUndefined();
    expect(eventForMeeting([ev('over', '09:00', '10:00')], { start: at('10:00') }, at('10:00'))).toBeUndefined();
    expect(eventForMeeting([ev('edge', '10:10', '11:00')], { start: at('10:00') }, at('10:00'))?.uid).toBe('edge');
  });

  test('a recording running for long is matched by its overlap up to now', () => {
    // Started 09:00, still recording at 09:50: the 09:00-09:30 event has ended, but overlaps 30 of 30 minutes.
    expect(eventForMeeting([ev('short', '09:00', '09:30')], { start: at('09:00') }, at('09:50'))?.uid).toBe('short');
  });

  test('eventInProgress alone: the later-starting of the candidates', () => {
    const events = [ev('a', '08:00', '12:00'), ev('b', '09:00', '10:00'), ev('c', '09:20', '09:40')];
    expect(eventInProgress(events, at('09:05'), at('09:10'))?.uid).toBe('b');
    expect(eventInProgress(events, at('09:15'), at('09:15'))?.uid).toBe('c');
  });
});
