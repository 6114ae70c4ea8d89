import {
  clusterEnvironment,
  clusterVersions,
  composeEnvironment,
  imagesNotRun,
  placeSettings,
  readCompose,
} from '../../dev/cluster/compose-topology';

/** An image's name and tag: `temporalio/auto-setup:1.29.1` → [temporalio/auto-setup, 1.29.1]. */
const nameAndTag = (image: string) => {
  const at = image.lastIndexOf(':');
  return [image.slice(0, at), image.slice(at + 1)] as const;
};

const somewhere = Object.fromEntries(Object.keys(placeSettings).map((key) => [key, `here:${key}`]));

describe('npm run cluster keeps in step with docker-compose.yml', () => {
  it('runs every image of the compose file at its tag, or says why not', () => {
    const versions = clusterVersions();
    const images = [...new Set(Object.values(readCompose()).map((service) => service.image!))]
      .map(nameAndTag)
      .filter(([name]) => !(name in imagesNotRun));
    expect(images.map(([name]) => [name, versions[name]?.tag])).toEqual(images);
    expect(Object.keys(versions).sort()).toEqual(images.map(([name]) => name).sort());
  });

  it('gives its workers and API every relayer setting of the compose file, changing only where things are', () => {
    for (const service of ['worker-1', 'api'] as const) {
      const compose = composeEnvironment(service);
      const cluster = clusterEnvironment(service, somewhere);
      expect(Object.keys(cluster).sort()).toEqual(Object.keys(compose).sort());
      const changed = Object.keys(compose).filter((key) => cluster[key] !== compose[key]);
      expect(changed.sort()).toEqual(Object.keys(placeSettings).sort());
    }
  });

  it("takes a run's tuning on top, only of relayer settings, never of where things are", () => {
    const tuned = clusterEnvironment('worker-1', somewhere, { THROTTLE_PER_SECOND: '25' });
    expect(tuned.THROTTLE_PER_SECOND).toBe('25');
    expect(tuned.DATABASE_URL).toBe('here:DATABASE_URL');
    expect(() => clusterEnvironment('worker-1', {}, { DATABASE_URL: 'elsewhere' })).toThrow(
      /DATABASE_URL says where things are/,
    );
  });

  it('refuses a setting the compose file does not have', () => {
    expect(() => clusterEnvironment('api', { NOT_A_SETTING: 'x' } as never)).toThrow(
      /does not set NOT_A_SETTING/,
    );
    expect(() => clusterEnvironment('api', {}, { NOT_A_SETTING: 'x' })).toThrow(
      /does not set NOT_A_SETTING/,
    );
  });
});
