import type { Page } from 'playwright-core';

/**
 * The Web UI's workflow list under a visibility `query`, as an operator opens it, once every
 * workflow id in `expected` shows on it (the list is eventually consistent); a screenshot of
 * it at `screenshotPath`, and the page's text.
 */
export async function workflowsListedInWebUi(
  page: Page,
  uiUrl: string,
  query: string,
  expected: string[],
  screenshotPath: string,
): Promise<string> {
  await page.goto(`${uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(query)}`);
  for (const workflowId of expected) {
    await page.getByText(workflowId, { exact: true }).first().waitFor({ timeout: 30_000 });
  }
  await page.screenshot({ path: screenshotPath, fullPage: true });
  return page.locator('body').innerText();
}
