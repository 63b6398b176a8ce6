import type { ComponentPropsWithoutRef, ElementType, ReactNode } from 'react';
import { buttonVariants, cn } from '@mieweb/ui';

type Look = NonNullable<Parameters<typeof buttonVariants>[0]>;

interface Own {
  /** The element to draw: an anchor by default, or the router's Link to stay in the page. */
  as?: ElementType;
  leftIcon?: ReactNode;
  className?: string;
  children?: ReactNode;
}

export type ButtonLinkProps<As extends ElementType> = Look &
  Own & { as?: As } & Omit<ComponentPropsWithoutRef<As>, keyof Look | keyof Own>;

/** A link that looks like the library's Button. */
export function ButtonLink<As extends ElementType = 'a'>({
  as,
  variant,
  size,
  leftIcon,
  className,
  children,
  ...linkProps
}: ButtonLinkProps<As>) {
  const Element: ElementType = as ?? 'a';
  return (
    <Element className={cn(buttonVariants({ variant, size }), className)} {...linkProps}>
      {leftIcon}
      {children}
    </Element>
  );
}
