import type { CrmPipeline } from '../crm';
import { listingPipelineProblems } from './listing-pipeline.check';

const pipelines: CrmPipeline[] = [
  {
    id: 'default',
    label: 'Sales Pipeline',
    stages: [
      { id: 'appointmentscheduled', label: 'Appointment Scheduled' },
      { id: 'closedwon', label: 'Closed Won' },
    ],
  },
  { id: '456', label: 'Listings', stages: [{ id: '7', label: 'Request Cash Offer' }] },
  { id: '900', label: 'Cash Offers', stages: [{ id: '13', label: 'Accepted' }] },
];

describe('listingPipelineProblems', () => {
  it('finds nothing wrong with ids the CRM has', () => {
    expect(listingPipelineProblems({ pipelineId: '456', triggerStageId: '7' }, pipelines, 'hubspot')).toEqual(
      [],
    );
    expect(listingPipelineProblems({ pipelineId: 'default' }, pipelines, 'hubspot')).toEqual([]);
  });

  it('names an unknown pipeline id and the pipelines there are', () => {
    expect(listingPipelineProblems({ pipelineId: '123' }, pipelines, 'hubspot')).toEqual([
      {
        path: 'crm.pipelines.listings.pipelineId',
        id: '123',
        message:
          "'123' is not a deal pipeline in this HubSpot account; it has: default (Sales Pipeline), 456 (Listings), 900 (Cash Offers)",
        existing: [
          { id: 'default', label: 'Sales Pipeline' },
          { id: '456', label: 'Listings' },
          { id: '900', label: 'Cash Offers' },
        ],
      },
    ]);
  });

  it("names a trigger stage that is not the pipeline's, with its stages and where the id is instead", () => {
    const [problem] = listingPipelineProblems(
      { pipelineId: '456', triggerStageId: '13' },
      pipelines,
      'followupboss',
    );
    expect(problem).toMatchObject({ path: 'crm.pipelines.listings.triggerStageId', id: '13' });
    expect(problem.message).toBe(
      "'13' is not a stage of pipeline 456 (Listings); it has: 7 (Request Cash Offer) ('13' is stage Accepted of pipeline 900 (Cash Offers))",
    );
  });

  it('reports both a wrong pipeline and a trigger stage no pipeline has, in one go', () => {
    const problems = listingPipelineProblems(
      { pipelineId: '1', triggerStageId: '99' },
      pipelines,
      'followupboss',
    );
    expect(problems.map((p) => p.path)).toEqual([
      'crm.pipelines.listings.pipelineId',
      'crm.pipelines.listings.triggerStageId',
    ]);
    expect(problems[0].message).toContain('in this Follow Up Boss account');
    expect(problems[1].message).toMatch(
      /^'99' is not a deal stage in this Follow Up Boss account; it has: appointmentscheduled \(Appointment Scheduled, Sales Pipeline\)/,
    );
  });

  it("with a wrong pipeline, a trigger stage found elsewhere says whose it is in the pipeline's problem", () => {
    const problems = listingPipelineProblems({ pipelineId: '1', triggerStageId: '7' }, pipelines, 'hubspot');
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toContain("('7' is stage Request Cash Offer of pipeline 456 (Listings))");
  });
});
