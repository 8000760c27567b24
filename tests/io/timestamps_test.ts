import fc from "fast-check";
import { assert, assertEquals, assertThrows } from "../_assert.ts";
import { createTimestampParser, parseTimestamp } from "../../io/timestamps.ts";

const LA = "America/Los_Angeles";

Deno.test("an empty value is an error, not epoch 0", () => {
  assertThrows(
    () => parseTimestamp("", LA),
    "expected a timestamp (epoch seconds or a date-time), got ''",
  );
  assertThrows(() => parseTimestamp("9007199254740993", LA), "at most 2^53 - 1");
  assertEquals(parseTimestamp("-9007199254740991", LA), -(2 ** 53 - 1));
});

Deno.test("epoch seconds, fractions kept", () => {
  assertEquals(parseTimestamp("1700000000", LA), 1700000000);
  assertEquals(parseTimestamp("1700000000.5", LA), 1700000000.5);
  assertEquals(parseTimestamp("0", LA), 0);
  assertEquals(parseTimestamp("-5", LA), -5);
  assertEquals(parseTimestamp(".5", LA), 0.5);
  assert(Object.is(parseTimestamp("-0", LA), 0), "-0 becomes 0");
});

Deno.test("epoch-shaped values that are not numbers are rejected", () => {
  for (const bad of ["1-2", "-", ".", "1.2.3", "--1"]) {
    assertThrows(() => parseTimestamp(bad, LA), `expected epoch seconds, got '${bad}'`);
  }
});

Deno.test("calendar time in the given zone, T or space", () => {
  assertEquals(parseTimestamp("2024-01-01 00:00:00", LA), 1704096000);
  assertEquals(parseTimestamp("2024-01-01T00:00:00", LA), 1704096000);
  assertEquals(parseTimestamp("2024-01-01 00:00:00", "UTC"), 1704067200);
  assertEquals(parseTimestamp("2024-07-01 12:00:00", LA), 1719860400); // PDT, UTC-7
  assertEquals(parseTimestamp("2024-01-01 00:00:00.25", LA), 1704096000.25);
  assertEquals(parseTimestamp("2024-02-29 00:00:00", "UTC"), 1709164800);
  assertEquals(parseTimestamp("0099-01-01 00:00:00", "UTC"), -59042995200); // not 1999
});

Deno.test("ISO with offset is converted to UTC, whatever the zone", () => {
  assertEquals(parseTimestamp("2024-01-01T00:00:00Z", LA), 1704067200);
  assertEquals(parseTimestamp("2024-01-01 00:00:00Z", LA), 1704067200);
  assertEquals(parseTimestamp("2024-01-01T02:00:00+02:00", LA), 1704067200);
  assertEquals(parseTimestamp("2024-01-01T02:00:00+0200", LA), 1704067200);
  assertEquals(parseTimestamp("2024-01-01T02:00:00+02", LA), 1704067200);
  assertEquals(parseTimestamp("2023-12-31T16:00:00-08:00", "UTC"), 1704067200);
  assertEquals(parseTimestamp("2024-01-01T00:00:00.5Z", LA), 1704067200.5);
  // Offsets with minutes (India, Nepal, Newfoundland): read as minutes, not
  // seconds, with either sign and either spelling.
  assertEquals(parseTimestamp("2024-01-01T05:30:00+05:30", LA), 1704067200);
  assertEquals(parseTimestamp("2024-01-01T05:45:00+0545", LA), 1704067200);
  assertEquals(parseTimestamp("2023-12-31T20:30:00-03:30", "UTC"), 1704067200);
});

Deno.test("malformed date-times are rejected with the value", () => {
  for (
    const bad of [
      "2024-13-01 00:00:00",
      "2023-02-29 00:00:00",
      "2024-01-01 24:00:00",
      "2024-01-01",
      "2024/01/01 00:00:00",
      "2024-01-01 00:00:00.",
      "2024-01-01 00:00:00 x",
      "abc",
      "1e9",
    ]
  ) {
    assertThrows(() => parseTimestamp(bad, LA), `got '${bad}'`);
  }
  for (
    const bad of ["2024-01-01T00:00:00+25:00", "2024-01-01T00:00:00+02:0", "2024-01-01T00:00:00Zx"]
  ) {
    assertThrows(() => parseTimestamp(bad, LA), "followed by Z or ±HH:MM");
  }
});

Deno.test("unknown zone is an error", () => {
  assertThrows(() => parseTimestamp("0", "Mars/Olympus_Mons"), "got 'Mars/Olympus_Mons'");
  assertThrows(() => createTimestampParser("nowhere"), "IANA time zone");
});

Deno.test("DST gap and fold follow Temporal's compatible rule", () => {
  // 02:30 does not exist on 2024-03-10 in Los Angeles: it reads as 03:30 PDT.
  assertEquals(parseTimestamp("2024-03-10 02:30:00", LA), 1710066600);
  // 01:30 happens twice on 2024-11-03: the earlier (PDT) one is taken.
  assertEquals(parseTimestamp("2024-11-03 01:30:00", LA), 1730622600);
  // Lord Howe shifts by 30 minutes inside a local hour, so that hour is not cached.
  const p = createTimestampParser("Australia/Lord_Howe");
  for (const v of ["2024-10-06 01:59:59", "2024-10-06 02:10:00", "2024-10-06 02:45:00"]) {
    const exact = Temporal.PlainDateTime.from(v.replace(" ", "T")).toZonedDateTime(
      "Australia/Lord_Howe",
    ).epochMilliseconds / 1000;
    assertEquals(p(v), exact);
  }
});

Deno.test("property: hour cache agrees with Temporal for every second", () => {
  const zones = [LA, "UTC", "Europe/Berlin", "Asia/Kolkata", "Australia/Lord_Howe"];
  fc.assert(
    fc.property(
      fc.constantFrom(...zones),
      fc.integer({ min: 0, max: 40 * 365 * 86400 }),
      (zone, offset) => {
        const local = Temporal.PlainDateTime.from("2000-01-01T00:00:00").add({ seconds: offset });
        const text = local.toString().replace("T", " ");
        const expected = local.toZonedDateTime(zone).epochMilliseconds / 1000;
        return parseTimestamp(text, zone) === expected;
      },
    ),
    { seed: 42, numRuns: 2000 },
  );
});

Deno.test("property: hour cache agrees with Temporal on DST change days", () => {
  const days: Array<[string, string]> = [
    [LA, "2024-03-10"],
    [LA, "2024-11-03"],
    ["Europe/Berlin", "2024-03-31"],
    ["Europe/Berlin", "2024-10-27"],
    ["Australia/Lord_Howe", "2024-04-07"],
    ["Australia/Lord_Howe", "2024-10-06"],
  ];
  fc.assert(
    fc.property(
      fc.constantFrom(...days),
      fc.integer({ min: 0, max: 86399 }),
      fc.boolean(),
      ([zone, day], second, fresh) => {
        const local = Temporal.PlainDateTime.from(`${day}T00:00:00`).add({ seconds: second });
        const text = local.toString();
        const expected = local.toZonedDateTime(zone).epochMilliseconds / 1000;
        const parse = fresh ? createTimestampParser(zone) : (v: string) => parseTimestamp(v, zone);
        return parse(text) === expected;
      },
    ),
    { seed: 42, numRuns: 3000 },
  );
});
